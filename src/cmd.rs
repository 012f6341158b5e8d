//! What a person can do on the page, as the commands the views send to the live run
//! ([`LiveRun::exec`](crate::liverun::LiveRun::exec)): plain data, so that the views, the share links and the crash
//! report can name them without depending on the run.

use kubeloop_engine::api::{Kind, ObjKey};
use kubeloop_engine::behaviour::BehaviourPatch;
use kubeloop_engine::intervention::{
    AppAction, AppTarget, DeleteTarget, FaultAction, Intervention, ModeAction, NodeRef,
};
use kubeloop_engine::kubelet::NodeConfig;
use kubeloop_engine::link::Link;
use kubeloop_engine::sim::TimingProfile;

use crate::view::{Selection, Speed};

/// What the user can do: an intervention on the cluster (apply, a node, a fault, a mode...), or something about
/// the page itself (the clock, the selection, lessons, the console).
#[derive(Clone, Debug, PartialEq)]
pub enum Cmd {
    /// Something done to the cluster, in the engine's one vocabulary.
    Intervene(Intervention),
    Select(Selection),
    SetPlaying(bool),
    Step,
    SetSpeed(Speed),
    /// Rebuilds the simulation (same seed) with these node failure timings.
    SetTiming(TimingProfile),
    /// A fresh simulation (same seed) set up as the lesson says, its script run as time passes; with a profile,
    /// rebuilt with those timings.
    StartLesson(&'static str, Option<TimingProfile>),
    /// Stops the lesson's remaining script (the simulation keeps running).
    StopLesson,
    /// The person's prediction for the lesson's waiting question (a choice, or `None` to skip it).
    Predict(Option<usize>),
    /// Whether lessons ask for a prediction before their steps (they do by default); a check still follows each.
    LessonAsks(bool),
    DismissNotice,
    /// A line typed in the kubectl console (`kubectl` optional; `clear` empties the console). `stdin` is what
    /// `-f -` reads: the editor's text.
    Kubectl {
        line: String,
        stdin: Option<String>,
    },
    /// Ctrl+C in the console: stops the command that is still printing.
    KubectlInterrupt,
    /// explain's documentation as fetched from the site ([`LiveRun::take_docs_request`](crate::liverun::LiveRun::take_docs_request)), or why not.
    Docs(Result<String, String>),
    /// The page's second module instantiated (`crate::deferred`), or why not.
    Deferred(Result<(), String>),
    /// The lessons' and example scenarios' files, fetched from the site (each file's path and its text, or why not).
    Files(Vec<(String, Result<String, String>)>),
    /// Ctrl+L: empties the console (a running command keeps printing).
    KubectlClear,
    /// The run so far as a scenario file, for the page to download ([`LiveRun::take_download`](crate::liverun::LiveRun::take_download)).
    Export,
    /// A scenario file's text to open ([`LiveRun::import`](crate::liverun::LiveRun::import)).
    Import(String),
    /// Something the page says in the notice bar (a file not opened, a session not kept, and why).
    Notice(String),
    /// The run again from 0, with the same interventions at their times, with this seed (or the same).
    Replay(Option<u64>),
    /// Makes a link to the run so far ([`LiveRun::take_share_request`](crate::liverun::LiveRun::take_share_request) hands the page what to compress).
    Share,
    /// The link the page made of it (the whole URL), or why there is none.
    Shared(Result<String, String>),
    /// Whether the link went to the clipboard.
    Copied(bool),
    CloseShare,
    /// The score plugins' weights for the scheduling explanation's what-if (nothing in the run changes).
    SetScheduleWeights([i64; 4]),
    /// Which filter plugins run in the scheduling explanation's what-if (nothing in the run changes).
    SetScheduleFilters([bool; 5]),
    /// The controller the loop diagram shows.
    ShowLoop(String),
    /// What a link opened the page with.
    Open(Opening),
    /// Stops a large apply being read: nothing of it is applied.
    CancelApply,
    /// Finds a node or pod by name ([`crate::snapshot::search`]): one named exactly is selected.
    Find(String),
    /// "Why?" of a pod: the chain of causes of its creation, as the engine recorded them.
    Why(ObjKey),
    /// "Why?" of one write of a pod or node (an entry of its history).
    WhyWrite(ObjKey, u64),
    /// The history of a pod or a node (a cluster-scoped key): every write kept, each version made again.
    History(ObjKey),
    /// Compares two versions of the history shown (`a`: the one before `b` when `None`).
    HistoryPick {
        a: Option<u64>,
        b: u64,
    },
    CloseHistory,
    /// Shows the cluster as it was at this simulated time (ms), read-only: the timeline's scrub.
    Scrub(kubeloop_engine::time::Millis),
    /// Back to the live cluster from a scrubbed moment.
    Live,
    /// Forks the run at the moment shown (live or scrubbed): the page goes on from there, compared with the run it
    /// was forked from.
    Fork,
    /// Stops comparing with the run forked from.
    Unfork,
    /// Draws and counts kube-system's add-on pods in the cluster view (or leaves them out, the default).
    ShowAddons(bool),
    /// A new run (same seed) of this many nodes of the default shape and pods ([`sized_scenario`](crate::liverun::sized_scenario)).
    NewCluster {
        nodes: usize,
        pods: usize,
        /// kube-system's add-ons first (kube-proxy, kindnet, CoreDNS), as every cluster has them by default.
        addons: bool,
    },
}

/// What a link opens ([`LiveRun::open`](crate::liverun::LiveRun::open)), as the page read it from the URL's fragment
/// (a run inflated already to its scenario file), or why it does not open.
pub type Opening = Result<Link<String>, String>;

impl Cmd {
    /// Whether it only changes what the page shows of the cluster (a scrubbed view stays scrubbed); everything
    /// else acts on the live run, and the view goes back to live first.
    pub fn only_looks(&self) -> bool {
        matches!(
            self,
            Cmd::Select(_)
                | Cmd::Find(_)
                | Cmd::Why(_)
                | Cmd::WhyWrite(..)
                | Cmd::ShowLoop(_)
                | Cmd::Scrub(_)
                | Cmd::Live
                | Cmd::History(_)
                | Cmd::HistoryPick { .. }
                | Cmd::CloseHistory
                | Cmd::Fork
                | Cmd::Unfork
                | Cmd::DismissNotice
                | Cmd::Copied(_)
                | Cmd::CloseShare
                | Cmd::Share
                | Cmd::Shared(_)
                | Cmd::Export
                | Cmd::Notice(_)
                | Cmd::Docs(_)
                | Cmd::Deferred(_)
                | Cmd::Files(_)
                | Cmd::SetScheduleWeights(_)
                | Cmd::SetScheduleFilters(_)
                | Cmd::SetSpeed(_)
        )
    }
}

/// The interventions the page's buttons and knobs make.
impl Cmd {
    pub fn apply(text: String) -> Cmd {
        Cmd::Intervene(Intervention::Apply(text))
    }

    pub fn kill_node(name: &str) -> Cmd {
        Cmd::Intervene(Intervention::KillNode(NodeRef::Name(name.to_string())))
    }

    pub fn revive_node(name: &str) -> Cmd {
        Cmd::Intervene(Intervention::ReviveNode(NodeRef::Name(name.to_string())))
    }

    pub fn cordon(name: &str, on: bool) -> Cmd {
        Cmd::Intervene(Intervention::Cordon { node: name.to_string(), on })
    }

    /// A node of the default shape (the page's node template), named `node-N`.
    pub fn add_node() -> Cmd {
        Cmd::Intervene(Intervention::AddNode(NodeConfig::default()))
    }

    /// `kubectl delete pod NAME -n NAMESPACE --wait=false`.
    pub fn delete_pod(key: &ObjKey) -> Cmd {
        let target = DeleteTarget::Name(key.name.to_string());
        let namespace = Some(key.namespace.to_string());
        Cmd::Intervene(Intervention::Delete { kind: Kind::Pod, namespace, target, wait: false })
    }

    /// What a pod's simulated application does (kubeloop's own input): a behaviour change, or a crash now.
    pub fn app_pod(key: &ObjKey, patch: BehaviourPatch, crash: bool) -> Cmd {
        let target = AppTarget::Pod { namespace: key.namespace.to_string(), name: key.name.to_string() };
        Cmd::Intervene(Intervention::App(AppAction { target, container: None, patch, crash }))
    }

    pub fn fault(f: FaultAction) -> Cmd {
        Cmd::Intervene(Intervention::Fault(f))
    }

    pub fn mode(m: ModeAction) -> Cmd {
        Cmd::Intervene(Intervention::Mode(m))
    }
}
