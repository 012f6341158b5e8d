// filled by the tests helper
