//! The choices of a structured generator, read from the fuzzer's bytes: every byte string is a valid list of
//! choices (an exhausted input chooses 0), so libFuzzer's mutations of the bytes become mutations of the structure.

/// A cursor over the bytes a generator decides with.
pub struct Bytes<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Bytes<'a> {
    pub fn new(data: &'a [u8]) -> Bytes<'a> {
        Bytes { data, pos: 0 }
    }

    /// The next byte, 0 once the input is used up.
    pub fn byte(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }

    /// True once every byte has been read: generators stop growing lists then.
    pub fn exhausted(&self) -> bool {
        self.pos >= self.data.len()
    }

    /// A number in `0..n` (`n` at most 65,536; 0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n <= 1 {
            return 0;
        }
        let v =
            if n <= 256 { usize::from(self.byte()) } else { usize::from(self.byte()) << 8 | usize::from(self.byte()) };
        v % n
    }

    /// One of `items`.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    /// True with probability about `percent` %.
    pub fn chance(&mut self, percent: u8) -> bool {
        (u16::from(self.byte()) * 100 / 256) < u16::from(percent)
    }

    /// A count for a list: small mostly, 0 once the input is used up.
    pub fn count(&mut self, max: usize) -> usize {
        if self.exhausted() {
            return 0;
        }
        self.below(max + 1)
    }

    /// A raw integer of the fuzzer's choosing (8 bytes).
    pub fn u64(&mut self) -> u64 {
        (0..8).fold(0u64, |acc, _| acc << 8 | u64::from(self.byte()))
    }
}
