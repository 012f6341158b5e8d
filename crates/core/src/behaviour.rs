//! What the simulated applications do: kubeloop's own input, since no real process runs in a container. A
//! behaviour says whether a container's readiness, liveness and startup checks pass, whether and when its process
//! exits, and whether its image can be pulled. It is set for every container of an image (a new version that
//! crashes is a property of the image), or for one pod's container (a click on the page); the pod's setting wins.
//! Nothing here is random: the same inputs at the same simulated times replay the same run.

use crate::vecmap::VecMap;

use crate::api::Str;
use crate::time::{Millis, SECOND};

/// The exit code a simulated process ends with when told to crash and no other code is given (kubeloop's own).
pub const DEFAULT_EXIT_CODE: i32 = 1;

/// How long a container of a pod whose restart policy is not `Always` runs before its process exits with code 0 on
/// its own, when its behaviour sets no `crash_after` (kubeloop's own: no real program runs, and a Job's pods must
/// end for the Job to complete; the `app:` input's `crashAfter` and `exitCode` set another).
pub const DEFAULT_RUN_TIME: Millis = 10 * SECOND;

/// Image rules kept at most (kubeloop's own bound).
pub const MAX_IMAGE_RULES: usize = 1_000;

/// How a container's process behaves. The default is a healthy process that runs until it is stopped.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Behaviour {
    /// Its readiness check answers with an error.
    pub readiness_fails: bool,
    /// Its liveness check answers with an error.
    pub liveness_fails: bool,
    /// Its startup check fails until the process has run this long (`None`: passes at once).
    pub(crate) starts_after: Option<Millis>,
    /// The process exits this long after every start (`None`: it runs until stopped).
    pub crash_after: Option<Millis>,
    /// The code it exits with when it crashes ([`DEFAULT_EXIT_CODE`] when unset).
    pub(crate) exit_code: Option<i32>,
    /// Pulling its image fails (the registry answers "not found").
    pub unpullable: bool,
    /// What the process does on SIGTERM (`None`: it exits after the runtime's stop time, a second or so).
    pub on_sigterm: Option<Sigterm>,
    /// How long its exec or httpGet preStop hook takes (`None`: an exec hook's `sleep N`, else at once).
    pub pre_stop_takes: Option<Millis>,
}

/// What a process does when the kubelet sends it SIGTERM (kubeloop's own input).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sigterm {
    /// It exits (code 143) this long after the signal.
    ExitAfter(Millis),
    /// It goes on until SIGKILL ends it at the end of the grace period (code 137).
    Ignore,
}

impl Behaviour {
    pub(crate) fn exit_code(&self) -> i32 {
        self.exit_code.unwrap_or(DEFAULT_EXIT_CODE)
    }

    /// How long the process runs after a start before it exits on its own: its `crash_after`, else, in a pod that
    /// does not restart always (`Never`, `OnFailure`), [`DEFAULT_RUN_TIME`]; `None`: until stopped.
    pub(crate) fn runs_for(&self, restart_policy: &str) -> Option<Millis> {
        let ends = matches!(restart_policy, "Never" | "OnFailure");
        self.crash_after.or(ends.then_some(DEFAULT_RUN_TIME))
    }

    /// The code it exits with on its own: its `exit_code`; unset, [`DEFAULT_EXIT_CODE`] for a crash
    /// (`crash_after`) and 0 for a process that ran its [`DEFAULT_RUN_TIME`] to the end.
    pub(crate) fn own_exit_code(&self) -> i32 {
        match (self.exit_code, self.crash_after) {
            (Some(code), _) => code,
            (None, Some(_)) => DEFAULT_EXIT_CODE,
            (None, None) => 0,
        }
    }
}

/// A change to a behaviour: the fields given replace the current ones.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct BehaviourPatch {
    pub readiness_fails: Option<bool>,
    pub liveness_fails: Option<bool>,
    pub starts_after: Option<Option<Millis>>,
    pub crash_after: Option<Option<Millis>>,
    pub exit_code: Option<Option<i32>>,
    pub unpullable: Option<bool>,
    pub on_sigterm: Option<Option<Sigterm>>,
    pub pre_stop_takes: Option<Option<Millis>>,
}

impl BehaviourPatch {
    pub(crate) fn apply(&self, b: &mut Behaviour) {
        if let Some(v) = self.readiness_fails {
            b.readiness_fails = v;
        }
        if let Some(v) = self.liveness_fails {
            b.liveness_fails = v;
        }
        if let Some(v) = self.starts_after {
            b.starts_after = v;
        }
        if let Some(v) = self.crash_after {
            b.crash_after = v;
        }
        if let Some(v) = self.exit_code {
            b.exit_code = v;
        }
        if let Some(v) = self.unpullable {
            b.unpullable = v;
        }
        if let Some(v) = self.on_sigterm {
            b.on_sigterm = v;
        }
        if let Some(v) = self.pre_stop_takes {
            b.pre_stop_takes = v;
        }
    }

    pub fn is_empty(&self) -> bool {
        *self == BehaviourPatch::default()
    }
}

/// The behaviours set for images (the per-pod ones live with the kubelet that runs the pod, and go with it).
#[derive(Clone, Debug, Default)]
pub struct Behaviours {
    by_image: VecMap<Str, Behaviour>,
}

impl Behaviours {
    /// The behaviour of an image's containers (healthy unless a rule says otherwise).
    pub(crate) fn of_image(&self, image: &str) -> Behaviour {
        self.by_image.get(image).cloned().unwrap_or_default()
    }

    /// Changes the rule of an image; a rule back at the default is forgotten. Errors past [`MAX_IMAGE_RULES`].
    pub(crate) fn patch_image(&mut self, image: &str, patch: &BehaviourPatch) -> Result<(), String> {
        let mut b = self.of_image(image);
        patch.apply(&mut b);
        if b == Behaviour::default() {
            self.by_image.remove(image);
        } else if self.by_image.contains_key(image) || self.by_image.len() < MAX_IMAGE_RULES {
            self.by_image.insert(Str::from(image), b);
        } else {
            return Err(format!("kubeloop keeps at most {MAX_IMAGE_RULES} image behaviours (kubeloop's own bound)"));
        }
        Ok(())
    }
}
