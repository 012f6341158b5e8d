//! What waits for code and data the page loads once it runs (docs/size.md): a console line for explain's
//! documentation or for the second module (`crate::deferred`: kubectl's commands, the scenario reader), and the
//! commands and the session restore that run that code. Each runs when what it needs has arrived, in the order it came.

use kubeloop_engine::intervention::Intervention;
use kubeloop_engine::kubectl;

use super::LiveRun;
use crate::cmd::Cmd;
use crate::session::Session;

/// Commands kept while the second module loads (a person's clicks in the moment before it arrives).
const AFTER_CODE_MAX: usize = 16;

/// A console line waiting for what it needs.
pub(super) struct Waiting {
    /// Its console entry, shown running.
    pub id: u64,
    pub line: String,
    /// What `-f -` reads (the editor's text).
    pub stdin: Option<String>,
}

/// What waits for the second module.
pub(super) struct AfterCode {
    /// The module is to be loaded ([`LiveRun::take_code_request`]): once the page runs, and again after a failure.
    pub request: bool,
    /// A load is on its way (at most one).
    fetching: bool,
    /// Commands that run its code, in order (at most [`AFTER_CODE_MAX`]).
    cmds: Vec<Cmd>,
    /// The session kept before a reload, restored once its run can be read.
    restore: Option<Session>,
}

impl Default for AfterCode {
    fn default() -> Self {
        AfterCode { request: true, fetching: false, cmds: Vec::new(), restore: None }
    }
}

/// Whether a command runs the second module's code: kubectl's commands (the page's cordon, scale and delete
/// buttons are kubectl lines), reading a scenario file (opening one, a link, the lessons' files, a replay), and
/// "why?" of a pod (the chain of causes), and the timeline's scrubs, forks and histories (a cluster made again).
fn needs_code(cmd: &Cmd) -> bool {
    match cmd {
        Cmd::Intervene(w) => w.kubectl_line().is_some() || matches!(w, Intervention::Delete { .. }),
        Cmd::Import(_) | Cmd::Open(_) | Cmd::Files(_) | Cmd::Replay(_) | Cmd::Why(_) | Cmd::WhyWrite(..) => true,
        Cmd::Scrub(_) | Cmd::Fork | Cmd::History(_) | Cmd::HistoryPick { .. } => true,
        _ => false,
    }
}

impl LiveRun {
    /// Whether the second module is to be loaded now: asked for, not loaded, no load on its way. The page answers
    /// with [`Cmd::Deferred`].
    pub fn take_code_request(&mut self) -> bool {
        let a = &mut self.after_code;
        let go = std::mem::take(&mut a.request) && !a.fetching && !crate::deferred::ready();
        a.fetching |= go;
        go
    }

    /// `cmd` if it can run now; else it is kept until the second module arrives.
    pub(super) fn unless_waiting_for_code(&mut self, cmd: Cmd) -> Option<Cmd> {
        if crate::deferred::ready() || !needs_code(&cmd) {
            return Some(cmd);
        }
        let a = &mut self.after_code;
        if a.cmds.len() < AFTER_CODE_MAX {
            a.cmds.push(cmd);
        }
        a.request = true;
        None
    }

    /// The session if its run can be read now; else it is kept, the clock held, until the second module arrives.
    pub(super) fn restore_after_code(&mut self, s: Session) -> Option<Session> {
        if crate::deferred::ready() || s.run.is_none() {
            return Some(s);
        }
        self.after_code.restore = Some(s);
        self.after_code.request = true;
        self.playing = false;
        self.notice = Some("Restoring your last session…".into());
        None
    }

    /// Whether a kept session waits to be restored (the page keeps it as it is meanwhile).
    pub fn restoring(&self) -> bool {
        self.after_code.restore.is_some()
    }

    /// explain's documentation arrived (or not): the waiting line runs if it has all it needs.
    pub(super) fn docs_arrived(&mut self, got: Result<String, String>) {
        self.docs_fetching = false;
        if let Err(e) = got.and_then(kubectl::load_docs) {
            if let Some(w) = self.waiting.take_if(|w| kubectl::needs_docs(&w.line)) {
                let why = format!("kubeloop: kubectl's documentation (explain, -h) did not load: {e}");
                self.console.finish(w.id, kubectl::Output::error(why));
            }
        }
        self.resume_waiting();
    }

    /// The second module arrived (or not): what waited for it runs, in order (or is told why not).
    pub(super) fn code_arrived(&mut self, got: Result<(), String>) {
        self.after_code.fetching = false;
        let cmds = std::mem::take(&mut self.after_code.cmds);
        let restore = self.after_code.restore.take();
        if let Err(e) = got {
            let why = format!("kubeloop's code for kubectl and scenario files did not load: {e}");
            if let Some(w) = self.waiting.take() {
                self.console.finish(w.id, kubectl::Output::error(format!("kubeloop: {why}")));
            }
            if !cmds.is_empty() || restore.is_some() {
                self.notice = Some(format!("{why}. Reload the page to try again.").into());
            }
            return;
        }
        self.resume_waiting();
        if let Some(s) = restore {
            self.restore(s);
        }
        for cmd in cmds {
            self.exec(cmd);
        }
    }

    /// Runs the waiting line once it has all it needs, in place of its waiting entry.
    fn resume_waiting(&mut self) {
        let ready = |w: &Waiting| !kubectl::needs_docs(&w.line) && crate::deferred::ready();
        if let Some(w) = self.waiting.take_if(|w| ready(w)) {
            self.console.unwait(w.id);
            self.exec(Cmd::Kubectl { line: w.line, stdin: w.stdin });
        }
    }
}
