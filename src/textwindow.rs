//! A large editor text held as a window (kubeloop's own bound): the textarea holds a bounded run of lines around
//! what is shown, and the lines before and after it are kept here. A browser's textarea lays out all of its text
//! on every keystroke (about 200 ms at 3 MiB of short lines); a window of at most [`WINDOW_LINES`] lines costs what
//! a small text does, whatever the whole text's size.
//!
//! Positions in the textarea are UTF-16 code units (as `selectionStart` counts); lines end at `\n`.

/// Lines a window holds at most (half before the line it is centred on, half after).
pub const WINDOW_LINES: usize = 1200;
/// Bytes a window holds at most (the line it is centred on is always whole, whatever its length).
pub const WINDOW_BYTES: usize = 96 * 1024;
/// The window moves when what is shown (or the caret) comes this many lines from one of its edges and there is
/// more text beyond.
pub const MARGIN: usize = 150;

/// The text outside the window: whole text = `before` + window + `after`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TextWindow {
    /// The lines before the window, each with its `\n` (empty when the window starts the text).
    before: String,
    /// `\n` and the lines after the window (empty when the window ends the text).
    after: String,
    lines_before: usize,
    lines_after: usize,
    before16: usize,
    after16: usize,
    /// Ctrl+A: the whole text is selected (the textarea shows its window selected).
    pub all: bool,
}

/// Lines in `text` (a text without `\n` is one line).
pub fn count_lines(text: &str) -> usize {
    text.bytes().filter(|&b| b == b'\n').count() + 1
}

/// `text`'s length in UTF-16 units: a unit per char, two for a char of four UTF-8 bytes (counted over bytes, which
/// the compiler vectorises: a 4 MiB text is counted in a few milliseconds).
fn len16(text: &str) -> usize {
    text.bytes().map(|b| usize::from(b & 0xC0 != 0x80) + usize::from(b >= 0xF0)).sum()
}

/// The line and UTF-16 column of UTF-16 position `pos` in `text` (clamped to its end).
pub fn line_col16(text: &str, pos: usize) -> (usize, usize) {
    if text.is_ascii() {
        // A unit per byte: counted over bytes (a 4 MiB text in a few milliseconds).
        return line_col_at(text, pos.min(text.len()));
    }
    let (mut line, mut col, mut at) = (0, 0, 0);
    for c in text.chars() {
        if at >= pos {
            break;
        }
        at += c.len_utf16();
        if c == '\n' {
            line += 1;
            col = 0;
        } else {
            col += c.len_utf16();
        }
    }
    (line, col)
}

/// The UTF-16 position of column `col` of line `line` in `text` (clamped to the line's end, and to the text's).
pub fn pos16(text: &str, line: usize, col: usize) -> usize {
    let (mut l, mut at) = (0, 0);
    let mut chars = text.chars();
    while l < line {
        match chars.next() {
            Some('\n') => {
                l += 1;
                at += 1;
            }
            Some(c) => at += c.len_utf16(),
            None => return at,
        }
    }
    let mut c16 = 0;
    for c in chars {
        if c == '\n' || c16 + c.len_utf16() > col {
            break;
        }
        c16 += c.len_utf16();
    }
    at + c16
}

/// The byte offset of UTF-16 position `pos` in `text` (clamped to its end).
pub fn byte_of16(text: &str, pos: usize) -> usize {
    let mut at = 0;
    for (i, c) in text.char_indices() {
        if at >= pos {
            return i;
        }
        at += c.len_utf16();
    }
    text.len()
}

/// The line and UTF-16 column at byte offset `i` of `text` (a char boundary).
pub fn line_col_at(text: &str, i: usize) -> (usize, usize) {
    let head = &text[..i];
    let line_start = head.rfind('\n').map_or(0, |n| n + 1);
    (head.bytes().filter(|&b| b == b'\n').count(), len16(&head[line_start..]))
}

/// The byte offset where line `line` of `text` starts (the text's end when it has fewer lines).
fn line_start(text: &str, line: usize) -> usize {
    if line == 0 {
        return 0;
    }
    text.match_indices('\n').nth(line - 1).map_or(text.len(), |(i, _)| i + 1)
}

impl TextWindow {
    /// The window of `whole` around line `center` (clamped to the last line), and the window's text.
    pub fn around(whole: &str, center: usize) -> (TextWindow, String) {
        let total = count_lines(whole);
        let center = center.min(total - 1);
        let bytes = whole.as_bytes();
        let c0 = line_start(whole, center);
        let c1 = whole[c0..].find('\n').map_or(whole.len(), |i| c0 + i);
        // Grow from the centre line outwards, a line at a time on each side, within both bounds.
        let (mut start, mut end, mut lines) = (c0, c1, 1);
        loop {
            let mut grew = false;
            if start > 0 && lines < WINDOW_LINES {
                let prev = bytes[..start - 1].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
                if end - prev <= WINDOW_BYTES {
                    start = prev;
                    lines += 1;
                    grew = true;
                }
            }
            if end < whole.len() && lines < WINDOW_LINES {
                let next = whole[end + 1..].find('\n').map_or(whole.len(), |i| end + 1 + i);
                if next - start <= WINDOW_BYTES {
                    end = next;
                    lines += 1;
                    grew = true;
                }
            }
            if !grew {
                break;
            }
        }
        let (before, window, after) = (&whole[..start], &whole[start..end], &whole[end..]);
        let lines_before = count_lines(before) - 1;
        let tw = TextWindow {
            before: before.to_string(),
            after: after.to_string(),
            lines_before,
            lines_after: total - lines_before - lines,
            before16: len16(before),
            after16: len16(after),
            all: false,
        };
        (tw, window.to_string())
    }

    /// The whole text, with `window` (what the textarea holds now) in its place.
    pub fn whole(&self, window: &str) -> String {
        let mut s = String::with_capacity(self.before.len() + window.len() + self.after.len());
        s.push_str(&self.before);
        s.push_str(window);
        s.push_str(&self.after);
        s
    }

    /// The whole text's length in UTF-16 units, the window being `window16` long.
    pub fn len16(&self, window16: usize) -> usize {
        self.before16 + window16 + self.after16
    }

    /// Lines before the window: the first line of the window, 0-based, in the whole text.
    pub fn first_line(&self) -> usize {
        self.lines_before
    }

    /// Bytes before the window.
    pub fn before_bytes(&self) -> usize {
        self.before.len()
    }

    pub fn lines_after(&self) -> usize {
        self.lines_after
    }

    /// Whether showing lines `top..=bottom` of the whole text (the window holding `window_lines`) needs the
    /// window moved: they come within [`MARGIN`] of an edge beyond which there is more text.
    pub fn needs_move(&self, window_lines: usize, top: usize, bottom: usize) -> bool {
        let (first, end) = (self.lines_before, self.lines_before + window_lines);
        (self.lines_before > 0 && top < first + MARGIN) || (self.lines_after > 0 && bottom + MARGIN >= end)
    }

    /// The window moved to be centred on line `center` of the whole text; `window` is what the textarea holds now.
    /// Returns the new window's text.
    pub fn recenter(&mut self, window: &str, center: usize) -> String {
        let (tw, text) = TextWindow::around(&self.whole(window), center);
        *self = tw;
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(lines: usize) -> String {
        (0..lines).map(|i| format!("line {i} é😀")).collect::<Vec<_>>().join("\n")
    }

    #[test]
    fn a_window_is_bounded_and_the_parts_make_the_whole() {
        for (whole, center) in [(text(10_000), 5_000), (text(10_000), 0), (text(10_000), 9_999), (text(10), 3)] {
            let (tw, w) = TextWindow::around(&whole, center);
            assert_eq!(tw.whole(&w), whole);
            let lines = count_lines(&w);
            assert!(lines <= WINDOW_LINES && w.len() <= WINDOW_BYTES, "{lines} lines, {} bytes", w.len());
            assert_eq!(tw.first_line() + lines + tw.lines_after(), count_lines(&whole));
            assert!((tw.first_line()..tw.first_line() + lines).contains(&center.min(count_lines(&whole) - 1)));
            assert_eq!(tw.len16(len16(&w)), len16(&whole));
            assert_eq!(len16(&whole), whole.encode_utf16().count());
            assert_eq!(w.lines().next(), whole.lines().nth(tw.first_line()));
        }
        // Long lines: the byte bound holds, the centre line is whole however long.
        let long: String = (0..1000).map(|i| format!("{i}{}\n", "v".repeat(900))).collect();
        let (tw, w) = TextWindow::around(&long, 500);
        assert!(w.len() <= WINDOW_BYTES && tw.whole(&w) == long);
        let one = "x".repeat(WINDOW_BYTES * 3);
        let (tw, w) = TextWindow::around(&one, 0);
        assert_eq!((w.len(), tw.first_line(), tw.lines_after()), (one.len(), 0, 0));
    }

    #[test]
    fn moving_the_window_keeps_edits_and_positions_map_by_line() {
        let whole = text(20_000);
        let (mut tw, w) = TextWindow::around(&whole, 0);
        assert!(!tw.needs_move(count_lines(&w), 0, 40));
        assert!(tw.needs_move(count_lines(&w), count_lines(&w) - 100, count_lines(&w) - 60));
        let edited = format!("new\n{w}");
        let w2 = tw.recenter(&edited, 10_000);
        let expect = format!("new\n{whole}");
        assert_eq!(tw.whole(&w2), expect);
        assert!(tw.first_line() > 0 && tw.lines_after() > 0);
        assert_eq!(w2.lines().next(), expect.lines().nth(tw.first_line()));
        // UTF-16 positions: line 2, column 8 is after "line 1 é" (é is one unit, 😀 two).
        let ascii = "ab\ncd\n";
        assert_eq!([0, 2, 3, 5, 6, 99].map(|p| line_col16(ascii, p)), [(0, 0), (0, 2), (1, 0), (1, 2), (2, 0), (2, 0)]);
        let w = text(5);
        let p = pos16(&w, 1, 8);
        assert_eq!(line_col16(&w, p), (1, 8));
        let prefix = String::from_utf16(&w.encode_utf16().take(p).collect::<Vec<_>>()).unwrap();
        assert_eq!(prefix.lines().last(), Some("line 1 é"));
        assert_eq!(pos16(&w, 1, 1000), pos16(&w, 2, 0) - 1, "clamped to the line's end");
        assert_eq!(pos16(&w, 99, 0), len16(&w), "clamped to the text's end");
        let b = byte_of16(&w, p);
        assert_eq!(line_col_at(&w, b), (1, 8));
        assert_eq!(byte_of16(&w, usize::MAX), w.len());
    }
}
