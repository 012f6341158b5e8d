//! The page's kubectl console: earlier commands and the last one (bounded), the commands still printing (`get -w`,
//! `rollout status`, a `drain` waiting for evictions), Ctrl+C and Ctrl+L, and Tab completion's text handling. Every
//! command runs through `kubectl::run` against the page's Sim, as the runner's do.

use std::rc::Rc;

use kubeloop_engine::kubectl;
use kubeloop_engine::scenario::{not_followed, room_to_follow, FollowGrid};
use kubeloop_engine::sim::Sim;
use kubeloop_engine::time::Millis;

use crate::view::{Chunk, ConsoleEntry, ConsoleView};

/// Earlier commands the console keeps.
pub const CONSOLE_SCROLLBACK: usize = 50;
/// Characters of output one console entry keeps (the oldest lines go first).
pub const CONSOLE_ENTRY_CHARS: usize = 200_000;

/// `kubectl apply -f NAME`: the page has no file system, so NAME is one of the examples, by its menu id or title,
/// with or without `.yaml` / `examples/`, or a file the example scenarios read (`manifests/api.yaml`, as they name
/// it). Otherwise kubectl's message.
pub fn example_file(name: &str) -> Result<String, String> {
    match bundled(name) {
        Some((_, Some(text))) => Ok(text.to_string()),
        // Fetched once the page runs: a command typed in its first moments may come before it.
        Some((what, None)) => Err(format!("{what} has not arrived from the site yet: try again in a moment")),
        None => Err(format!("the path \"{name}\" does not exist")),
    }
}

/// The example `-f NAME` names: what it is, as the console says it, and its text (`None` while its file has not
/// arrived).
fn bundled(name: &str) -> Option<(String, Option<std::rc::Rc<str>>)> {
    let n = name.trim();
    let base = n.strip_prefix("./").unwrap_or(n);
    let base = base.strip_prefix("examples/").unwrap_or(base);
    if base.starts_with("manifests/") {
        if let Some(path) = crate::examples::SITE_FILES.iter().find(|path| **path == base) {
            return Some((format!("examples/{path}"), crate::examples::file(path)));
        }
    }
    let stem = base.strip_suffix(".yaml").or_else(|| base.strip_suffix(".yml")).unwrap_or(base);
    let example =
        crate::examples::EXAMPLES.iter().find(|e| e.id.eq_ignore_ascii_case(stem) || e.title.eq_ignore_ascii_case(n));
    example.map(|e| (format!("the example {} ({})", e.id, e.title), e.text()))
}

/// The page's own note when a command's `-f NAME` read bundled examples (the page has no files: the person may have
/// meant the editor's text, which `-f -` reads).
fn bundled_note(line: &str, read: &[String]) -> Option<String> {
    if read.is_empty() {
        return None;
    }
    let words = kubectl::args::split_words(line).unwrap_or_default();
    let applies = words.iter().find(|w| *w != "kubectl").is_some_and(|w| w == "apply");
    let (did, dash) = if applies { ("applied", "applies") } else { ("read", "reads") };
    Some(format!(
        "kubeloop: {did} {}, bundled with the page (it has no files); -f - {dash} the editor\n",
        read.join(", ")
    ))
}

/// Tab: the line with its last word completed as far as the candidates agree, and the candidates when there is
/// more than one (a shell lists them).
pub fn apply_completion(line: &str, candidates: &[String]) -> (String, Vec<String>) {
    let start = if line.ends_with(char::is_whitespace) {
        line.len()
    } else {
        line.rfind(char::is_whitespace).map_or(0, |i| i + line[i..].chars().next().map_or(1, char::len_utf8))
    };
    let (head, cur) = line.split_at(start);
    match candidates {
        [] => (line.to_string(), Vec::new()),
        [one] => {
            let space = if one.ends_with('/') || one.ends_with('=') { "" } else { " " };
            (format!("{head}{one}{space}"), Vec::new())
        }
        [first, rest @ ..] => {
            let mut prefix = first.as_str();
            for c in rest {
                let n = prefix.char_indices().zip(c.chars()).take_while(|((_, a), b)| a == b).count();
                let end = prefix.char_indices().nth(n).map_or(prefix.len(), |(i, _)| i);
                prefix = &prefix[..end];
            }
            let line = if prefix.len() > cur.len() { format!("{head}{prefix}") } else { line.to_string() };
            (line, candidates.to_vec())
        }
    }
}

/// A command's output in the order a terminal shows it: warnings, stdout, stderr.
fn chunks_of(warnings: String, stdout: String, stderr: String) -> Vec<Chunk> {
    let mut chunks = Vec::new();
    for (text, out) in [(warnings, false), (stdout, true), (stderr, false)] {
        if !text.is_empty() {
            chunks.push(if out { Chunk::Stdout(text) } else { Chunk::Stderr(text) });
        }
    }
    chunks
}

/// A command still printing: its entry, when it is looked at, and what the run records of it.
pub(crate) struct Running {
    /// Its entry's id.
    entry: u64,
    pub(crate) follow: Box<dyn kubectl::Follow>,
    /// When it is looked at: on its own grid from its start, as the runner looks at it.
    pub(crate) grid: FollowGrid,
    /// The recorded action that started it (its `for:` is written when it is interrupted), and when a replayed
    /// `for:` interrupts it.
    pub(crate) action: Option<usize>,
    pub(crate) stop_at: Option<Millis>,
}

/// The console's state.
#[derive(Default)]
pub struct Console {
    pub(crate) earlier: Rc<Vec<Rc<ConsoleEntry>>>,
    pub(crate) last: Option<Rc<ConsoleEntry>>,
    /// The commands still printing, in the order they started. A terminal's foreground command is stopped by the
    /// next line; one that writes as it goes (`drain`) goes on beside the lines after it, as in a terminal of its
    /// own, so that a read never changes the run.
    pub(crate) running: Vec<Running>,
    seq: u64,
    /// How many times a kept session's entries came back ([`Console::restore`]).
    restored: u64,
}

impl Console {
    /// Ctrl+L: the scrollback goes; the commands still printing keep their entries, emptied.
    pub fn clear(&mut self) {
        let running = &self.running;
        let runs = |id: u64| running.iter().any(|r| r.entry == id);
        Rc::make_mut(&mut self.earlier).retain(|e| runs(e.id));
        if self.last.as_ref().is_some_and(|l| !runs(l.id)) {
            self.last = None;
        }
        for k in 0..self.running.len() {
            if let Some(e) = self.entry_mut(self.running[k].entry) {
                e.chunks.clear();
                e.truncated = false;
            }
        }
    }

    /// Runs one console line through `kubectl::run` against `sim` (`-f -` reads `stdin`, `-f NAME` an example);
    /// whether it keeps printing. The caller stops what the line replaces first ([`Console::interrupt_readers`]).
    pub fn run(&mut self, sim: &mut Sim, line: &str, stdin: Option<&str>) -> bool {
        if line.trim() == "clear" {
            self.clear();
            return false;
        }
        let read = std::cell::RefCell::new(Vec::new());
        let read_file = |name: &str| {
            read.borrow_mut().extend(bundled(name).map(|(what, _)| what));
            example_file(name)
        };
        let input = kubectl::Input { stdin, read_file: &read_file };
        let mut out = kubeloop_engine::intervention::kubectl_typed(sim, line, &input);
        let follow = out.follow.take();
        self.seq += 1;
        let mut chunks = chunks_of(out.warnings, out.stdout, out.stderr);
        chunks.extend(bundled_note(line, &read.borrow()).map(Chunk::Note));
        let entry = ConsoleEntry {
            id: self.seq,
            line: line.to_string(),
            chunks,
            code: if follow.is_some() { None } else { Some(out.code) },
            truncated: false,
        };
        self.push_entry(entry);
        follow.is_some_and(|f| self.follow(sim, f, None, None))
    }

    /// A command the page performs across frames (a large `apply -f -`): shown running until [`Console::ended`].
    pub fn started(&mut self, line: &str) {
        self.seq += 1;
        let entry =
            ConsoleEntry { id: self.seq, line: line.to_string(), chunks: Vec::new(), code: None, truncated: false };
        self.push_entry(entry);
    }

    /// What the command [`Console::started`] printed, and its exit code.
    pub fn ended(&mut self, out: kubectl::Output) {
        if let Some(id) = self.last.as_ref().filter(|l| l.code.is_none()).map(|l| l.id) {
            self.finish(id, out);
        }
    }

    /// A line that waits for what the page fetches before it can run (explain's documentation): shown running
    /// until [`Console::finish`] ends it by the id returned here.
    pub fn waiting(&mut self, line: &str) -> u64 {
        self.started(line);
        self.seq
    }

    /// A waiting line about to run after all (as a new entry): its waiting entry goes when it is the newest, else
    /// it ends with nothing printed.
    pub fn unwait(&mut self, id: u64) {
        if self.last.as_ref().is_some_and(|l| l.id == id && l.code.is_none()) {
            self.last = Rc::make_mut(&mut self.earlier).pop();
        } else {
            self.finish(id, kubectl::Output::default());
        }
    }

    /// What the command of entry `id` printed, and its exit code (nothing when the entry has ended or scrolled off).
    pub fn finish(&mut self, id: u64, out: kubectl::Output) {
        let Some(entry) = self.entry_mut(id).filter(|e| e.code.is_none()) else { return };
        entry.chunks = chunks_of(out.warnings, out.stdout, out.stderr);
        entry.code = Some(out.code);
        bound_entry(entry);
    }

    /// A command a lesson's script (or an opened run) ran that keeps printing (`drain` waiting for evictions,
    /// `rollout status`): a new entry with what it printed so far, followed from then on as if typed (the runner
    /// follows it the same way), as recorded action `action`, interrupted at `stop_at` (a replayed `for:`).
    pub fn adopt(
        &mut self,
        sim: &mut Sim,
        line: &str,
        printed: &str,
        follow: Box<dyn kubectl::Follow>,
        action: Option<usize>,
        stop_at: Option<Millis>,
    ) {
        self.seq += 1;
        let entry = ConsoleEntry {
            id: self.seq,
            line: line.to_string(),
            chunks: if printed.is_empty() { Vec::new() } else { vec![Chunk::Stdout(printed.to_string())] },
            code: None,
            truncated: false,
        };
        self.push_entry(entry);
        self.follow(sim, follow, action, stop_at);
    }

    /// Follows the command of the last entry from now, if there is room (the runner's bound, [`room_to_follow`]):
    /// what it printed already is shown at once; it is looked at (polled) only on its grid, since a look may write.
    fn follow(
        &mut self,
        sim: &mut Sim,
        mut follow: Box<dyn kubectl::Follow>,
        action: Option<usize>,
        stop_at: Option<Millis>,
    ) -> bool {
        let Some(id) = self.last.as_ref().map(|l| l.id) else { return false };
        let writes = follow.writes();
        let pending = follow.pending();
        let room = room_to_follow(self.running.iter().map(|r| r.follow.writes()), writes);
        if !room {
            follow.stop(sim);
        }
        if let Some(e) = self.entry_mut(id) {
            append(e, pending, None);
            if !room {
                e.chunks.push(Chunk::Note(format!("{}\n", not_followed(&e.line, writes))));
                e.code = Some(0);
            }
        }
        if room {
            let grid = FollowGrid::new(sim.now());
            self.running.push(Running { entry: id, follow, grid, action, stop_at });
        }
        room
    }

    /// The running command of the last entry (the one just started or adopted), to say what the run records of it.
    pub(crate) fn newest(&mut self) -> Option<&mut Running> {
        let id = self.last.as_ref().map(|l| l.id);
        self.running.iter_mut().find(|r| Some(r.entry) == id)
    }

    /// A new last entry (within its bound); the previous one joins the bounded scrollback.
    fn push_entry(&mut self, mut entry: ConsoleEntry) {
        bound_entry(&mut entry);
        if let Some(prev) = self.last.replace(Rc::new(entry)) {
            let earlier = Rc::make_mut(&mut self.earlier);
            earlier.push(prev);
            if earlier.len() > CONSOLE_SCROLLBACK {
                let extra = earlier.len() - CONSOLE_SCROLLBACK;
                earlier.drain(..extra);
            }
        }
    }

    /// The entry `id`, to append to (`None` once it left the scrollback: what comes is not kept).
    fn entry_mut(&mut self, id: u64) -> Option<&mut ConsoleEntry> {
        if self.last.as_ref().is_some_and(|l| l.id == id) {
            return self.last.as_mut().map(Rc::make_mut);
        }
        let at = self.earlier.iter().position(|e| e.id == id)?;
        Rc::make_mut(&mut self.earlier).get_mut(at).map(Rc::make_mut)
    }

    /// When a running command is next to be looked at or interrupted.
    pub fn next_due(&self) -> Option<Millis> {
        self.running.iter().map(|r| r.stop_at.map_or(r.grid.next(), |t| t.min(r.grid.next()))).min()
    }

    /// Looks at the running commands due at `now` (each on its grid, in the order they started): what they printed
    /// goes to their entries; the finished ones end. Whether anything was looked at.
    pub fn poll_due(&mut self, sim: &mut Sim, now: Millis) -> bool {
        let mut looked = false;
        let mut i = 0;
        while i < self.running.len() {
            let r = &mut self.running[i];
            if !r.grid.due(now) {
                i += 1;
                continue;
            }
            looked = true;
            r.grid.polled(now);
            let p = r.follow.poll(sim);
            let (id, done) = (r.entry, p.done);
            if let Some(e) = self.entry_mut(id) {
                append(e, p, None);
            }
            if done {
                self.running.remove(i);
            } else {
                i += 1;
            }
        }
        looked
    }

    /// Interrupts the running commands whose `for:` is up at `now`; the actions that started them.
    pub fn stop_due(&mut self, sim: &mut Sim, now: Millis) -> Vec<usize> {
        self.interrupt_where(sim, &|r| r.stop_at.is_some_and(|t| t <= now))
    }

    /// A new line stops the running commands that only read (a terminal's foreground); one that writes as it goes
    /// goes on. The actions that started the stopped ones.
    pub fn interrupt_readers(&mut self, sim: &mut Sim) -> Vec<usize> {
        self.interrupt_where(sim, &|r| !r.follow.writes())
    }

    /// Ctrl+C: the newest running command stops; the action that started it, if it was recorded.
    pub fn interrupt_newest(&mut self, sim: &mut Sim) -> Option<usize> {
        let newest = self.running.len().checked_sub(1)?;
        self.interrupt(sim, newest)
    }

    /// Interrupts the running commands `which` picks (every one: the run is replaced); the actions that started them.
    pub(crate) fn interrupt_where(&mut self, sim: &mut Sim, which: &dyn Fn(&Running) -> bool) -> Vec<usize> {
        let mut actions = Vec::new();
        let mut i = 0;
        while i < self.running.len() {
            if which(&self.running[i]) {
                actions.extend(self.interrupt(sim, i));
            } else {
                i += 1;
            }
        }
        actions
    }

    /// Stops running command `i` (it releases its watch) and shows `^C` as a terminal does, after what arrived
    /// before the interrupt (it is looked at once more, as the runner does at a `for:`).
    fn interrupt(&mut self, sim: &mut Sim, i: usize) -> Option<usize> {
        let mut r = self.running.remove(i);
        let p = r.follow.poll(sim);
        r.follow.stop(sim);
        if let Some(e) = self.entry_mut(r.entry) {
            append(e, p, Some(130));
        }
        r.action
    }

    /// Every entry, oldest first.
    pub fn entries(&self) -> impl Iterator<Item = &ConsoleEntry> {
        self.earlier.iter().map(|e| &**e).chain(self.last.as_deref())
    }

    /// Entries of an earlier session, back in the scrollback (nothing is running).
    pub fn restore(&mut self, saved: &[crate::session::SavedEntry]) {
        for e in saved.iter().rev().take(CONSOLE_SCROLLBACK + 1).rev() {
            self.seq += 1;
            self.push_entry(e.entry(self.seq));
        }
        self.restored += 1;
    }

    /// Whether a command is still printing.
    pub fn running(&self) -> bool {
        !self.running.is_empty()
    }

    pub fn view(&self) -> ConsoleView {
        ConsoleView { earlier: self.earlier.clone(), last: self.last.clone(), restored: self.restored }
    }
}

/// Appends what a follow printed to its entry; when it is done, its exit code, else (an interrupt, `interrupted`
/// is the code a shell shows) a `^C` line. Keeps the entry within its bound.
fn append(e: &mut ConsoleEntry, p: kubectl::FollowPoll, interrupted: Option<i32>) {
    push_chunk(e, p.warnings, Chunk::Stderr);
    push_chunk(e, p.stdout, Chunk::Stdout);
    push_chunk(e, p.stderr, Chunk::Stderr);
    match (p.done, interrupted) {
        (true, _) => e.code = Some(p.code),
        (false, Some(code)) => {
            e.chunks.push(Chunk::Note("^C\n".into()));
            e.code = Some(code);
        }
        (false, None) => {}
    }
    bound_entry(e);
}

/// Appends output, joined to the previous chunk when it came from the same stream.
fn push_chunk(e: &mut ConsoleEntry, text: String, make: fn(String) -> Chunk) {
    if text.is_empty() {
        return;
    }
    match (e.chunks.last_mut(), make(text)) {
        (Some(Chunk::Stdout(a)), Chunk::Stdout(b)) | (Some(Chunk::Stderr(a)), Chunk::Stderr(b)) => a.push_str(&b),
        (_, c) => e.chunks.push(c),
    }
}

/// Keeps an entry's output within [`CONSOLE_ENTRY_CHARS`] by dropping its oldest lines.
fn bound_entry(e: &mut ConsoleEntry) {
    let mut total: usize = e.chunks.iter().map(|c| c.text().len()).sum();
    while total > CONSOLE_ENTRY_CHARS && !e.chunks.is_empty() {
        e.truncated = true;
        let excess = total - CONSOLE_ENTRY_CHARS;
        let first = e.chunks[0].text();
        if first.len() <= excess {
            total -= first.len();
            e.chunks.remove(0);
            continue;
        }
        // Cut after the first newline past the excess (or at a char boundary when there is none).
        let mut cut = excess;
        while !first.is_char_boundary(cut) {
            cut += 1;
        }
        let cut = first[cut..].find('\n').map_or(cut, |i| cut + i + 1);
        match &mut e.chunks[0] {
            Chunk::Stdout(s) | Chunk::Stderr(s) | Chunk::Note(s) => {
                s.drain(..cut);
            }
        }
        total -= cut;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completion_extends_the_common_prefix() {
        let v = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(apply_completion("kubectl get po", &v(&["pods"])), ("kubectl get pods ".into(), vec![]));
        assert_eq!(apply_completion("kubectl get ", &v(&["pods"])), ("kubectl get pods ".into(), vec![]));
        assert_eq!(apply_completion("kubectl scale deploy/w", &v(&["deploy/web"])).0, "kubectl scale deploy/web ");
        assert_eq!(apply_completion("get --namespace=", &v(&["--namespace="])).0, "get --namespace=");
        let (line, list) = apply_completion("kubectl get n", &v(&["namespaces", "nodes"]));
        assert_eq!((line.as_str(), list.len()), ("kubectl get n", 2));
        let (line, list) = apply_completion("kubectl d", &v(&["delete", "describe"]));
        assert_eq!((line.as_str(), list.len()), ("kubectl de", 2));
        assert_eq!(apply_completion("kubectl x", &[]), ("kubectl x".into(), vec![]));
        let mut sim = Sim::new(Default::default());
        for (line, completed) in
            [("kubectl get pods", "kubectl get pods "), ("kubectl get po", "kubectl get pod"), ("ro", "rollout ")]
        {
            let candidates = kubectl::complete(&mut sim, line);
            assert_eq!(apply_completion(line, &candidates).0, completed);
        }
    }

    #[test]
    fn long_output_keeps_its_newest_lines() {
        let mut entry = ConsoleEntry { id: 1, line: String::new(), chunks: vec![], code: None, truncated: false };
        for i in 0..30_000 {
            push_chunk(&mut entry, format!("line {i:05}\n"), Chunk::Stdout);
            bound_entry(&mut entry);
        }
        let text = entry.text();
        assert!(text.len() <= CONSOLE_ENTRY_CHARS && entry.truncated);
        assert!(text.starts_with("line ") && text.ends_with("line 29999\n"), "whole lines kept");
    }
}
