//! The session the page keeps across a reload: the editor's text, the console's scrollback and the run (as the
//! scenario file Export would download, replayed when the page opens). Kept in the browser's local storage by
//! [`crate::persist`]; this side (what is kept, its bounds, how it comes back) is plain Rust, tested natively.

use crate::view::{Chunk, ConsoleEntry};

/// The storage key; the version is part of it (a later format is another key, and this one is left alone).
pub const KEY: &str = "kubeloop.session.v1";
pub const VERSION: u32 = 1;
/// The most a stored session may hold, in characters (kubeloop's own bound, well inside browsers' 5 MB per site).
pub const MAX_CHARS: usize = 2 * 1024 * 1024;
/// A session larger than this is written every 30 s (and when the page is hidden or left) rather than every 2 s.
pub const LARGE_SESSION: usize = 256 * 1024;
/// Output a console entry keeps across a reload (its last characters).
pub const MAX_ENTRY_OUTPUT: usize = 8 * 1024;

/// One console entry as kept: the line, its output (0 stdout, 1 stderr, 2 the terminal's own notes) and its code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SavedEntry {
    pub line: String,
    pub chunks: Vec<(u8, String)>,
    pub code: Option<i32>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Session {
    pub editor: String,
    /// The run as a scenario file, when it is exportable, and whether it was playing.
    pub run: Option<String>,
    pub playing: bool,
    pub console: Vec<SavedEntry>,
}

impl SavedEntry {
    /// An entry as kept: a command still printing is kept as interrupted; long output keeps its end.
    pub fn of(e: &ConsoleEntry) -> SavedEntry {
        let mut chunks: Vec<(u8, String)> = e
            .chunks
            .iter()
            .map(|c| match c {
                Chunk::Stdout(s) => (0, s.clone()),
                Chunk::Stderr(s) => (1, s.clone()),
                Chunk::Note(s) => (2, s.clone()),
            })
            .collect();
        let mut total: usize = chunks.iter().map(|(_, s)| s.len()).sum();
        let mut cut = false;
        while total > MAX_ENTRY_OUTPUT && !chunks.is_empty() {
            let over = total - MAX_ENTRY_OUTPUT;
            let first = &mut chunks[0].1;
            if first.len() <= over {
                total -= first.len();
                chunks.remove(0);
            } else {
                let mut at = over;
                while !first.is_char_boundary(at) {
                    at += 1;
                }
                total -= at;
                first.drain(..at);
            }
            cut = true;
        }
        if cut {
            chunks.insert(0, (2, "(earlier output was not kept across the reload)\n".into()));
        }
        let code = e.code.or(Some(130));
        SavedEntry { line: e.line.clone(), chunks, code }
    }

    /// The entry back in the console.
    pub fn entry(&self, id: u64) -> ConsoleEntry {
        let chunks = self
            .chunks
            .iter()
            .map(|(k, s)| match k {
                0 => Chunk::Stdout(s.clone()),
                1 => Chunk::Stderr(s.clone()),
                _ => Chunk::Note(s.clone()),
            })
            .collect();
        ConsoleEntry { id, line: self.line.clone(), chunks, code: self.code, truncated: false }
    }
}

impl Session {
    /// Characters the session holds (what the storage bound counts, near enough: the JSON adds its punctuation).
    pub fn chars(&self) -> usize {
        self.editor.len()
            + self.run.as_ref().map_or(0, String::len)
            + self
                .console
                .iter()
                .map(|e| e.line.len() + e.chunks.iter().map(|(_, s)| s.len()).sum::<usize>())
                .sum::<usize>()
    }

    /// Within [`MAX_CHARS`]: the console goes first, then the run; the editor's text alone over it is not kept
    /// (`Err` says so).
    pub fn bounded(mut self) -> Result<Session, String> {
        while self.chars() > MAX_CHARS && !self.console.is_empty() {
            self.console.remove(0);
        }
        if self.chars() > MAX_CHARS {
            self.run = None;
        }
        if self.chars() > MAX_CHARS {
            return Err(format!(
                "the editor's text ({} characters) is more than kubeloop keeps across a reload ({MAX_CHARS})",
                self.editor.len()
            ));
        }
        Ok(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_output_keeps_its_end_and_a_running_command_is_kept_interrupted() {
        let out = "x".repeat(MAX_ENTRY_OUTPUT) + "é the end\n";
        let e = ConsoleEntry {
            id: 1,
            line: "get pods -w".into(),
            chunks: vec![Chunk::Stdout(out)],
            code: None,
            truncated: false,
        };
        let s = SavedEntry::of(&e);
        assert_eq!(s.code, Some(130));
        assert_eq!(s.chunks[0].0, 2);
        assert!(s.chunks[1].1.ends_with("é the end\n"));
        assert!(s.chunks[1].1.len() <= MAX_ENTRY_OUTPUT);
        let back = s.entry(7);
        assert_eq!((back.id, back.line.as_str()), (7, "get pods -w"));
        assert!(back.text().starts_with("(earlier output was not kept"));
    }

    #[test]
    fn a_session_over_its_bound_drops_the_console_then_the_run() {
        let entry = SavedEntry { line: "get pods".into(), chunks: vec![(0, "y".repeat(1000))], code: Some(0) };
        let s = Session {
            editor: "a".repeat(1000),
            run: Some("r".repeat(MAX_CHARS / 2)),
            playing: true,
            console: vec![entry; 3000],
        };
        let b = s.clone().bounded().expect("fits");
        assert!(b.chars() <= MAX_CHARS && b.run.is_some() && b.console.len() < 3000);
        let big = Session { run: Some("r".repeat(MAX_CHARS)), ..s.clone() };
        let b = big.bounded().expect("fits without the run");
        assert!(b.run.is_none());
        let huge = Session { editor: "e".repeat(MAX_CHARS + 1), ..Session::default() };
        assert!(huge.bounded().unwrap_err().contains("more than kubeloop keeps"));
    }
}
