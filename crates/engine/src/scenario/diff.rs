//! Two runs compared: the first write where they diverge, and their end states object by object. A fork is a
//! run's record up to a moment with one thing changed (another seed, an intervention undone or added); the page
//! forks, the runner compares two scenario files or links (`kubeloop diff A B`).
//!
//! Both runs go forward together a second of simulated time at a time; after each second their writes since the
//! last second are compared in order (time, verb, object, writer: what the history hash covers, and who wrote).
//! The first that differs, or that one run made and the other did not, is the first divergence.

use super::*;
use crate::manifest::ObjectText;

/// Objects listed at most in a diff's end states (kubeloop's own bound; the rest are counted).
pub const MAX_DIFF_OBJECTS: usize = 200;
/// Changed lines shown at most per object.
pub const MAX_DIFF_LINES: usize = 40;

/// The first write where two runs differ.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Divergence {
    /// When (simulated ms): the earlier of the two writes.
    pub at_ms: Millis,
    /// The write each run made there (`None`: that run made none).
    pub a: Option<String>,
    pub b: Option<String>,
}

/// How an object differs between the two runs' end states.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "change")]
pub enum ObjectChange {
    OnlyInA,
    OnlyInB,
    /// Its YAML (as `kubectl get -o yaml` prints it, but its resourceVersion) differs: the lines of A not in B (`- `) and of B not in A (`+ `),
    /// at most [`MAX_DIFF_LINES`], and how many more there were.
    Differs {
        lines: Vec<String>,
        more: usize,
    },
}

/// One object of the end states' diff.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ObjectDiff {
    pub kind: &'static str,
    pub namespace: String,
    pub name: String,
    #[serde(flatten)]
    pub change: ObjectChange,
}

/// Two runs compared.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunDiff {
    /// Where both runs ended.
    pub until_ms: Millis,
    pub history_hash_a: String,
    pub history_hash_b: String,
    /// `None` while the runs made the same writes.
    pub first_divergence: Option<Divergence>,
    /// The objects that differ at the end (Events left out: they follow the rest), at most [`MAX_DIFF_OBJECTS`].
    pub objects: Vec<ObjectDiff>,
    /// Objects that differ beyond those listed.
    pub more_objects: usize,
}

/// A write as a diff names it: `kubectl created Pod default/web-x at 41.2s`.
fn said(sim: &Sim, w: &crate::cause::WriteCause) -> String {
    let who = sim.client_name(w.client);
    let verb = w.verb_said();
    format!("{who} {verb} {} {} at {}", w.kind.name(), w.key, human_duration(w.at))
}

/// The writes after resourceVersion `from` up to `to`, as the cause log kept them (`None` when some are no longer
/// kept).
fn writes(sim: &Sim, from: u64, to: u64) -> Option<Vec<&crate::cause::WriteCause>> {
    (from + 1..=to).map(|rv| sim.causes().write(rv)).collect()
}

/// The first divergence among the writes made since both runs stood at `rv` (equal until then).
fn first_divergence(a: &Sim, b: &Sim, rv: u64) -> Option<Divergence> {
    let (ta, tb) = (a.store().resource_version(), b.store().resource_version());
    let (Some(wa), Some(wb)) = (writes(a, rv, ta), writes(b, rv, tb)) else {
        // More writes in a second than the causes keep: the divergence is within this second.
        let at = a.now();
        return Some(Divergence { at_ms: at, a: None, b: None });
    };
    let same = |x: &&crate::cause::WriteCause, y: &&crate::cause::WriteCause| {
        (x.at, x.verb, x.kind, &x.key, x.client) == (y.at, y.verb, y.kind, &y.key, y.client)
    };
    let n = wa.iter().zip(&wb).take_while(|(x, y)| same(x, y)).count();
    if n == wa.len() && n == wb.len() {
        return None;
    }
    let (x, y) = (wa.get(n), wb.get(n));
    let at = x.map(|w| w.at).into_iter().chain(y.map(|w| w.at)).min().unwrap_or_else(|| a.now());
    Some(Divergence { at_ms: at, a: x.map(|w| said(a, w)), b: y.map(|w| said(b, w)) })
}

/// Lines two texts may have for [`line_diff`] to align them (kubeloop's own bound, which holds its table under
/// 16 MB: beyond it, the lines of each not in the other are listed, without their order).
pub const MAX_DIFF_ALIGN: usize = 2_000;

/// `a` against `b`, line by line, as a unified diff without headers: each line of either prefixed `  ` (in both),
/// `- ` (only in `a`) or `+ ` (only in `b`), in order, along their longest common subsequence. `context`: how many
/// unchanged lines are kept around each change (`None`: all).
pub fn line_diff(a: &str, b: &str, context: Option<usize>) -> Vec<String> {
    let (x, y): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    if x.len().max(y.len()) > MAX_DIFF_ALIGN {
        let only = |p: &[&str], q: &[&str], mark: &str| -> Vec<String> {
            let q: std::collections::BTreeSet<&str> = q.iter().copied().collect();
            p.iter().filter(|l| !q.contains(*l)).map(|l| format!("{mark}{l}")).collect()
        };
        return [only(&x, &y, "- "), only(&y, &x, "+ ")].concat();
    }
    // lcs[i][j]: the longest common subsequence of x[i..] and y[j..].
    let w = y.len() + 1;
    let mut lcs = vec![0u32; (x.len() + 1) * w];
    for i in (0..x.len()).rev() {
        for j in (0..y.len()).rev() {
            lcs[i * w + j] =
                if x[i] == y[j] { lcs[(i + 1) * w + j + 1] + 1 } else { lcs[(i + 1) * w + j].max(lcs[i * w + j + 1]) };
        }
    }
    let mut out: Vec<(char, &str)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < x.len() || j < y.len() {
        if i < x.len() && j < y.len() && x[i] == y[j] {
            out.push((' ', x[i]));
            (i, j) = (i + 1, j + 1);
        } else if i < x.len() && (j == y.len() || lcs[(i + 1) * w + j] >= lcs[i * w + j + 1]) {
            out.push(('-', x[i]));
            i += 1;
        } else {
            out.push(('+', y[j]));
            j += 1;
        }
    }
    let near = |k: usize| match context {
        None => true,
        Some(c) => out[k.saturating_sub(c)..(k + c + 1).min(out.len())].iter().any(|(m, _)| *m != ' '),
    };
    // Unchanged lines left out between two changes are one `@@` line.
    let mut lines = Vec::new();
    let mut last = None;
    for k in (0..out.len()).filter(|k| near(*k)) {
        if context.is_some_and(|c| c > 0) && last.is_some_and(|l: usize| k > l + 1) {
            lines.push("@@".to_string());
        }
        lines.push(format!("{} {}", out[k].0, out[k].1));
        last = Some(k);
    }
    lines
}

/// An object's YAML without its resourceVersion line.
fn without_versions(yaml: &str) -> String {
    yaml.lines().filter(|l| !l.trim_start().starts_with("resourceVersion:")).flat_map(|l| [l, "\n"]).collect()
}

/// The two end states, object by object.
fn end_states(a: &Sim, b: &Sim) -> (Vec<ObjectDiff>, usize) {
    let mut out = Vec::new();
    let mut more = 0;
    let mut push = |d: ObjectDiff| {
        if out.len() < MAX_DIFF_OBJECTS {
            out.push(d);
        } else {
            more += 1;
        }
    };
    for kind in Kind::ALL.into_iter().filter(|k| *k != Kind::Event) {
        let (sa, sb) = (a.store(), b.store());
        let mut ia = sa.objects(kind).peekable();
        let mut ib = sb.objects(kind).peekable();
        loop {
            let change = match (ia.peek().map(|o| o.key()), ib.peek().map(|o| o.key())) {
                (None, None) => break,
                (Some(ka), Some(kb)) if ka == kb => {
                    let (oa, ob) = (ia.next().expect("peeked"), ib.next().expect("peeked"));
                    if oa == ob {
                        continue;
                    }
                    // The resourceVersion alone differs in every object written after the runs diverged.
                    let (ya, yb) = (without_versions(&oa.to_yaml()), without_versions(&ob.to_yaml()));
                    if ya == yb {
                        continue;
                    }
                    let mut lines = line_diff(&ya, &yb, Some(0));
                    let more = lines.len().saturating_sub(MAX_DIFF_LINES);
                    lines.truncate(MAX_DIFF_LINES);
                    (ka, ObjectChange::Differs { lines, more })
                }
                (Some(ka), Some(kb)) if ka < kb => (ia.next().map(|o| o.key()).unwrap_or(ka), ObjectChange::OnlyInA),
                (Some(ka), None) => (ia.next().map(|o| o.key()).unwrap_or(ka), ObjectChange::OnlyInA),
                (_, Some(kb)) => (ib.next().map(|o| o.key()).unwrap_or(kb), ObjectChange::OnlyInB),
            };
            let (key, change) = change;
            push(ObjectDiff {
                kind: kind.name(),
                namespace: key.namespace.to_string(),
                name: key.name.to_string(),
                change,
            });
        }
    }
    (out, more)
}

/// Two runs compared as both go on (the page's fork and the run it was forked from; `kubeloop diff`'s A and B,
/// from 0): each look takes the two
/// clusters at the same moment, equal (the same writes) until the fork, and finds the first write where they
/// diverge (kept once found: nothing later moves it) and their states object by object.
#[derive(Clone, Debug)]
pub struct ForkCompare {
    /// Both made the same writes up to this resourceVersion (while no divergence is found).
    equal_to: u64,
    first: Option<Divergence>,
}

impl ForkCompare {
    /// A fork of a cluster whose last write was `rv`.
    pub fn new(rv: u64) -> ForkCompare {
        ForkCompare { equal_to: rv, first: None }
    }

    /// `a` (the run forked from) and `b` (the fork), at the same moment, compared.
    pub fn look(&mut self, a: &Sim, b: &Sim) -> RunDiff {
        debug_assert_eq!(a.now(), b.now(), "compared at the same moment");
        self.follow(a, b);
        self.diff(a, b, a.now())
    }

    /// Looks at the writes both made since the last look, while no divergence is found.
    fn follow(&mut self, a: &Sim, b: &Sim) {
        if self.first.is_none() {
            self.first = first_divergence(a, b, self.equal_to);
            self.equal_to = a.store().resource_version();
        }
    }

    /// The two runs compared as they end at `until`: the first divergence found, their objects.
    fn diff(&self, a: &Sim, b: &Sim, until: Millis) -> RunDiff {
        let (objects, more_objects) = end_states(a, b);
        RunDiff {
            until_ms: until,
            history_hash_a: format!("{:016x}", a.history_hash()),
            history_hash_b: format!("{:016x}", b.history_hash()),
            first_divergence: self.first.clone(),
            objects,
            more_objects,
        }
    }
}

impl Scenario {
    /// Runs this scenario (A) and `other` (B) side by side to `until` (else the later of their ends) and compares
    /// them ([module docs](self)).
    pub fn diff(
        &self,
        other: &Scenario,
        a: RunOptions,
        b: RunOptions,
        until: Option<Millis>,
    ) -> Result<RunDiff, String> {
        let end_of = |sc: &Scenario, o: &RunOptions| o.until.or(sc.until).unwrap_or(DEFAULT_UNTIL);
        let until = until.unwrap_or_else(|| end_of(self, &a).max(end_of(other, &b)));
        if until > MAX_UNTIL {
            return Err(format!("a run lasts at most {}", human_duration(MAX_UNTIL)));
        }
        let mut ra = self.start(RunOptions { until: Some(until), ..a }).map_err(|e| format!("A: {e}"))?;
        let mut rb = other.start(RunOptions { until: Some(until), ..b }).map_err(|e| format!("B: {e}"))?;
        let mut compare = ForkCompare::new(0);
        compare.follow(ra.sim(), rb.sim());
        let mut t = 0;
        while t < until && ra.stopped_at_budget().is_none() && rb.stopped_at_budget().is_none() {
            t = t.saturating_add(SECOND).min(until);
            ra.run_to(t);
            rb.run_to(t);
            compare.follow(ra.sim(), rb.sim());
        }
        Ok(compare.diff(ra.sim(), rb.sim(), t))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines in both, only in the first and only in the second, in order, the removed before the added.
    #[test]
    fn a_line_diff_aligns_the_two_texts_along_what_they_share() {
        let d = line_diff("a\nb\nc\nd\n", "a\nc\nx\nd\n", None);
        assert_eq!(d, ["  a", "- b", "  c", "+ x", "  d"]);
        assert_eq!(line_diff("a\nb\n", "a\nc\n", None), ["  a", "- b", "+ c"]);
        assert!(line_diff("same\n", "same\n", Some(0)).is_empty());
    }

    /// With context, unchanged lines far from a change are left out and each gap is one `@@` line.
    #[test]
    fn context_keeps_the_lines_near_a_change() {
        let a: String = (0..20).map(|i| format!("l{i}\n")).collect();
        let b = a.replace("l2\n", "L2\n").replace("l15\n", "L15\n");
        let d = line_diff(&a, &b, Some(1));
        assert_eq!(d, ["  l1", "- l2", "+ L2", "  l3", "@@", "  l14", "- l15", "+ L15", "  l16"]);
    }

    /// Past the bound the lines of each not in the other are listed, without alignment.
    #[test]
    fn texts_past_the_bound_are_compared_as_sets_of_lines() {
        let a: String = (0..MAX_DIFF_ALIGN + 1).map(|i| format!("{i}\n")).collect();
        let b = format!("{a}new\n");
        assert_eq!(line_diff(&a, &b, Some(3)), ["+ new"]);
    }
}
