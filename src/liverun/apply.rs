//! Applying the editor's text or a console's `apply -f -`: small texts at once, large ones a few objects a frame
//! with the clock held (`kubectl::Applying`), with their progress and outcome.

use super::*;

/// What an apply did, as the editor shows it: the outcome counted, then kubectl's lines (each object applied, each
/// failure with its line), its warnings apart (folded).
pub(super) fn apply_outcome(seq: u64, report: &kubectl::ApplyReport) -> ApplyOutcome {
    ApplyOutcome {
        seq,
        ok: report.errors.is_empty(),
        summary: report.summary(),
        text: format!("\n{report}").trim_end().to_string(),
        warnings: report.warnings.iter().map(ToString::to_string).collect(),
        error_line: report.errors.first().map(|e| e.line),
        applying: None,
    }
}

/// An outcome that is a note of the page's own (an apply in flight, cancelled, a scenario's manifests).
pub(super) fn apply_note(seq: u64, ok: bool, summary: String, applying: Option<ApplyProgress>) -> ApplyOutcome {
    ApplyOutcome { seq, ok, summary, applying, ..ApplyOutcome::default() }
}

/// An apply larger than this is read across frames, the clock held meanwhile (kubeloop's own bound: a smaller one
/// takes less than a frame's budget).
pub const SLICED_APPLY_BYTES: usize = 64 * 1024;

/// A large apply spread across frames ([`LiveRun::frame`]), the clock held: read (cancellable), then performed at
/// the simulated time it was asked for: planned and written a few objects at a time, nothing else touching the run
/// meanwhile ([`LiveRun::settle_apply`]).
pub(super) struct Applying {
    /// The text's size, for the progress line.
    bytes: usize,
    /// Typed in the console (`apply -f -`): it prints there too.
    pub(super) console: bool,
    stage: ApplyStage,
}

pub(super) enum ApplyStage {
    /// The text, until it is recorded as the apply.
    Reading(kubeloop_engine::manifest::Reading, String),
    /// The steps reading took; the apply being planned and written.
    Performing(usize, Box<kubectl::Applying>),
}

impl ApplyStage {
    /// Steps done, of how many (an object counts as one document until the text is read).
    fn progress(&self) -> (usize, usize) {
        match self {
            ApplyStage::Reading(r, _) => {
                let (done, of) = r.progress();
                (done, 2 * of)
            }
            ApplyStage::Performing(read, a) => {
                let (done, of) = a.progress();
                (read + done, read + of)
            }
        }
    }
}

/// Whether a console line is exactly `kubectl apply -f -` (the editor's text applied, as the Apply button does).
pub(super) fn applies_stdin(line: &str) -> bool {
    let words = kubectl::args::split_words(line).unwrap_or_default();
    let words: Vec<&str> = words.iter().map(String::as_str).filter(|w| *w != "kubectl").collect();
    words == ["apply", "-f", "-"]
}

impl LiveRun {
    /// Starts reading a large apply across frames, the clock held (a text that does not even split into documents
    /// is performed at once: its error is quick to say).
    pub(super) fn start_apply(&mut self, text: String, console: bool) {
        if self.applying.is_some() {
            self.notice = Some("An apply is still being read: wait for it, or Cancel it first.".into());
            return;
        }
        match kubeloop_engine::manifest::Reading::new(text.as_str().into(), kubeloop_engine::manifest::STDIN) {
            Ok(reading) => {
                let job = Applying { bytes: text.len(), console, stage: ApplyStage::Reading(reading, text) };
                self.apply = Rc::new(ApplyOutcome { seq: self.apply.seq + 1, ..self.apply_progress(&job) });
                self.applying = Some(job);
                self.target = self.player.now() as f64;
            }
            Err(_) => {
                let what = Intervention::Apply(text);
                self.intervene(&what);
                self.record(what, None);
            }
        }
    }

    /// What the page says of an apply in flight.
    pub(super) fn apply_progress(&self, job: &Applying) -> ApplyOutcome {
        let (done, of) = job.stage.progress();
        let (what, cancellable) = match &job.stage {
            ApplyStage::Reading(..) => ("reading", true),
            ApplyStage::Performing(..) => ("applying", false),
        };
        let text = format!("{what} {} bytes: {}%…", job.bytes, done * 100 / of.max(1));
        apply_note(self.apply.seq, true, text, Some(ApplyProgress { done, of, cancellable }))
    }

    /// Moves the apply in flight on for `budget` wall ms: reads it; once read (or at its first error), records it
    /// and performs it at the held simulated time, as `Sim::intervene` of it would, a few objects at a time.
    pub(super) fn step_apply(&mut self, started: f64, budget: f64) {
        let Some(Applying { bytes, console, mut stage }) = self.applying.take() else { return };
        loop {
            stage = match stage {
                ApplyStage::Reading(mut reading, text) => match reading.step(8) {
                    Ok(false) => ApplyStage::Reading(reading, text),
                    Ok(true) => {
                        let read = reading.progress().1;
                        self.begin_apply(text);
                        ApplyStage::Performing(
                            read,
                            Box::new(kubectl::Applying::new(self.player.sim(), reading.finish())),
                        )
                    }
                    Err(e) => {
                        self.begin_apply(text);
                        return self.applied(kubectl::ApplyReport::refused(e), console);
                    }
                },
                ApplyStage::Performing(read, mut a) => {
                    if a.step(self.player.sim_mut(), 8) {
                        return self.applied(a.finish(), console);
                    }
                    ApplyStage::Performing(read, a)
                }
            };
            if self.wall() - started > budget {
                break;
            }
        }
        let job = Applying { bytes, console, stage };
        self.apply = Rc::new(self.apply_progress(&job));
        self.applying = Some(job);
        self.dirty = true;
    }

    /// The apply is read: from here it is the run's (recorded now, performed before anything else touches the run).
    pub(super) fn begin_apply(&mut self, text: String) {
        self.record(Intervention::Apply(text), None);
    }

    /// Cancel (or Ctrl+C in the console that started it): an apply still being read is dropped, nothing of it
    /// applied or recorded; once read it is the run's and goes on.
    pub(super) fn cancel_apply(&mut self) {
        let Some(Applying { stage: ApplyStage::Reading(..), console, .. }) = self.applying else { return };
        self.applying = None;
        let text = "apply cancelled: nothing was applied".to_string();
        if console {
            self.console.ended(kubectl::Output { stderr: format!("{text}\n"), code: 130, ..Default::default() });
        }
        self.apply = Rc::new(apply_note(self.apply.seq + 1, false, text, None));
    }

    /// The apply in flight ended: what it said, as `Sim::intervene` of it says it (and in the console, as kubectl
    /// prints it, when it was typed there).
    pub(super) fn applied(&mut self, report: kubectl::ApplyReport, console: bool) {
        if console {
            self.console.ended(kubectl::apply_output(&report));
        }
        self.apply = Rc::new(apply_outcome(self.apply.seq + 1, &report));
        self.dirty = true;
    }

    /// An apply already recorded (read, being planned or written) is finished at once: nothing else may touch the
    /// run before it has all been written, or the record would not replay (the page calls this before any command
    /// that reads or changes the run). `all`: one still being read too.
    pub(super) fn settle_apply(&mut self, all: bool) {
        if all || matches!(&self.applying, Some(Applying { stage: ApplyStage::Performing(..), .. })) {
            self.step_apply(self.wall(), f64::INFINITY);
        }
    }
}
