//! An object's history as the page shows it: every write of it the engine kept (resourceVersion, time, client,
//! verb), each version as `kubectl get -o yaml` prints it when the run made again from its checkpoints traced it, and
//! the diff between two chosen versions. Built in the second module (both functions are roots of the split).

use std::rc::Rc;

use kubeloop_engine::api::{Kind, ObjKey};
use kubeloop_engine::manifest::ObjectText;
use kubeloop_engine::scenario::line_diff;
use kubeloop_engine::sim::Sim;

use crate::format::fmt_secs;
use crate::view::{HistoryView, VersionView};

/// Versions the page lists at most (the newest; the engine traces at most `TRACE_MAX`).
pub const HISTORY_ROWS: usize = 200;
/// Diff lines shown at most.
pub const HISTORY_DIFF_LINES: usize = 400;

/// What the page keeps of an object's history: its writes, and the YAML of each version traced.
#[derive(Clone, Debug, Default)]
pub struct HistoryData {
    pub kind: Option<Kind>,
    pub key: Option<ObjKey>,
    pub versions: Vec<VersionView>,
    pub yaml: Vec<Option<Rc<str>>>,
    /// Versions written before the oldest listed, and events re-run to trace them.
    pub more: usize,
    pub rerun: u64,
}

/// The writes of `kind`/`key` that `shown` (the cluster the page shows) kept, each with its YAML where `traced` (the
/// run made again with the object traced) has the version, or where it is `stood`, the object as it stood when
/// the re-run began.
pub fn trace_history(
    shown: &Sim,
    traced: &Sim,
    stood: Option<Rc<kubeloop_engine::api::Object>>,
    kind: Kind,
    key: &ObjKey,
    rerun: u64,
) -> HistoryData {
    let traced = traced.causes().trace();
    let writes: Vec<_> = shown.causes().writes_of(kind, key).filter(|w| w.at <= shown.now()).collect();
    let more = writes.len().saturating_sub(HISTORY_ROWS);
    let mut data = HistoryData { kind: Some(kind), key: Some(key.clone()), more, rerun, ..Default::default() };
    for w in writes.into_iter().skip(more) {
        let version = traced.and_then(|t| t.versions.iter().find(|v| v.write.rv == w.rv)).map(|v| &v.object);
        let object = version.or(stood.as_ref().filter(|o| o.meta().resource_version == w.rv));
        data.versions.push(VersionView {
            rv: w.rv,
            at: w.at,
            client: shown.client_name(w.client),
            verb: w.verb_said(),
            kept: object.is_some(),
        });
        data.yaml.push(object.map(|o| Rc::from(o.to_yaml())));
    }
    data
}

/// The history with versions `a` and `b` compared (`b`: the newest if none; `a`: the version before `b` if none).
pub fn build_history(data: &HistoryData, a: Option<u64>, b: Option<u64>) -> HistoryView {
    let n = data.versions.len();
    let bi = b.and_then(|rv| data.versions.iter().position(|v| v.rv == rv)).unwrap_or(n.saturating_sub(1));
    let ai = a.and_then(|rv| data.versions.iter().position(|v| v.rv == rv)).or(bi.checked_sub(1));
    let text = |i: Option<usize>| i.and_then(|i| data.yaml.get(i).cloned().flatten());
    let (ta, tb) = (text(ai), text(Some(bi)));
    let said = |i: Option<usize>| {
        i.and_then(|i| data.versions.get(i)).map_or("nothing".to_string(), |v| {
            format!("resourceVersion {} ({}, {} by {})", v.rv, fmt_secs(v.at), v.verb, v.client)
        })
    };
    let mut diff = match (ai, &ta, &tb) {
        (None, _, Some(b)) => b.lines().map(|l| format!("+ {l}")).collect(),
        (_, Some(a), Some(b)) => line_diff(a, b, Some(3)),
        _ => {
            vec!["(a version compared was written before the run made again from its checkpoints began: not kept)"
                .into()]
        }
    };
    if diff.len() > HISTORY_DIFF_LINES {
        let left = diff.len() - HISTORY_DIFF_LINES;
        diff.truncate(HISTORY_DIFF_LINES);
        diff.push(format!("... {left} more line(s)"));
    }
    let kept = data.versions.iter().filter(|v| v.kept).count();
    let note = format!(
        "{} write(s) kept{}; {kept} version(s) as kubectl get -o yaml prints them, made again by re-running {} events from the nearest checkpoint",
        n + data.more,
        if data.more > 0 { format!(" (the newest {n} listed)") } else { String::new() },
        data.rerun
    );
    HistoryView {
        versions: data.versions.clone(),
        a: ai.and_then(|i| data.versions.get(i)).map(|v| v.rv),
        b: data.versions.get(bi).map(|v| v.rv),
        compared: format!("{} → {}", said(ai), said(Some(bi))),
        diff,
        note,
    }
}
