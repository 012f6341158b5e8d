//! Each read action checked with its line and turned into what it does: a mode's periods, a kubectl command line,
//! and the `ActionParser` that makes an `Action` of a raw one.

use super::*;
use crate::behaviour::Sigterm;

/// A period of a `mode:` action: 0 when `off` allows it (the period is then off), else from [`MIN_PERIOD`] to
/// [`MAX_PERIOD`]. The error says why (`resync`: client-go's minimum).
pub(in crate::scenario) fn check_period(p: Millis, off: bool, resync: bool) -> Result<Millis, String> {
    if p == 0 && off {
        return Ok(0);
    }
    let zero = if off { ", or 0 to turn it off" } else { "" };
    if p < MIN_PERIOD {
        let why = if resync {
            "client-go's minimum resync period of 1s".to_string()
        } else {
            format!(
                "kubeloop's minimum of {}: every poll or relist LISTs every resource the controllers read, and a \
                 shorter period would flood the run with requests",
                human_duration(MIN_PERIOD)
            )
        };
        return Err(format!(
            "{} is too short: at least {} ({why}){zero}",
            human_duration(p),
            human_duration(MIN_PERIOD)
        ));
    }
    if p > MAX_PERIOD {
        return Err(format!(
            "{} is too long: at most {} (the longest run){zero}",
            human_duration(p),
            human_duration(MAX_PERIOD)
        ));
    }
    Ok(p)
}

/// `kubectl: "..."` checked as far as it can be without running it: the words split, the command is one kubeloop
/// runs, and its flags parse. Returns the command line without the leading `kubectl`. `accepted`: the words that
/// are not commands but that kubectl ran without an error (`help`), found earlier in the scenario.
pub(in crate::scenario) fn check_kubectl(
    written: &str,
    accepted: &mut std::collections::BTreeSet<String>,
) -> Result<String, String> {
    use crate::kubectl::{args, COMMANDS};
    let t = written.trim();
    let command = ["kubectl", "k"]
        .iter()
        .find_map(|k| t.strip_prefix(k).filter(|r| r.is_empty() || r.starts_with(char::is_whitespace)))
        .map_or(t, str::trim_start);
    let words = args::split_words(command)?;
    // Global flags may come before the command (`-n team-a get pods`), as kubectl::run allows.
    let mut i = 0;
    while let Some(w) = words.get(i).map(String::as_str) {
        if w == "-n" || w == "--namespace" {
            i += 2;
        } else if (w.starts_with("-n") && w.len() > 2) || w.starts_with("--namespace=") {
            i += 1;
        } else {
            break;
        }
    }
    let Some(name) = words.get(i) else {
        return Err("a command is required, such as `kubectl: get pods`".into());
    };
    let Some(cmd) = COMMANDS.iter().find(|c| c.name == name) else {
        if name.chars().nth(crate::limits::ECHO_MAX_CHARS).is_some() {
            // No command is that long: kubectl's suggestions would compare all of it with every command name.
            return Err(format!("unknown command \"{}\" for \"kubectl\"", echo(name)));
        }
        // `help`, or kubectl's own message: an unknown command (with suggestions), one kubeloop does not simulate,
        // a flag. A word that is not a command runs nothing. (Asked once per word: a scenario may repeat it.)
        if accepted.contains(name.as_str()) {
            return Ok(command.to_string());
        }
        let mut sim = Sim::new(SimConfig::default());
        let out = crate::kubectl::run(&mut sim, &quoted(name), &crate::kubectl::Input::none());
        if out.code == 0 {
            accepted.insert(name.clone());
            return Ok(command.to_string());
        }
        let msg = out.stderr.trim_end();
        return Err(msg.strip_prefix("error: ").unwrap_or(msg).to_string());
    };
    let mut rest: Vec<String> = words[..i].to_vec();
    rest.extend(words[i + 1..].iter().cloned());
    if let Err(e) = args::Args::parse(&rest, cmd.flags) {
        return Err(format!("{e} (see `kubectl {} --help`)", cmd.name));
    }
    Ok(command.to_string())
}

/// Reads the `actions:` entries in order (the nodes added so far are counted against [`MAX_NODES`]).
pub(in crate::scenario) struct ActionParser<'a> {
    lines: &'a Lines<'a>,
    node_template: &'a NodeConfig,
    node_count: usize,
    /// Words kubectl ran without an error that are not commands (see [`check_kubectl`]).
    accepted_words: std::collections::BTreeSet<String>,
}

/// Where an action is: its index (`actions[3]`) and its path in the text.
struct At {
    i: usize,
    idx: String,
    line: usize,
}

impl At {
    fn path<'p>(&'p self, rest: &[&'p str]) -> Vec<&'p str> {
        let mut p = vec!["actions", self.idx.as_str()];
        p.extend_from_slice(rest);
        p
    }

    fn what(&self, key: &str) -> String {
        format!("actions[{}].{key}", self.i)
    }
}

impl<'a> ActionParser<'a> {
    pub(in crate::scenario) fn new(lines: &'a Lines<'a>, node_template: &'a NodeConfig, node_count: usize) -> Self {
        ActionParser { lines, node_template, node_count, accepted_words: Default::default() }
    }

    fn err(&self, at: &At, rest: &[&str], message: String) -> ScenarioError {
        ScenarioError::at(self.lines.of(&at.path(rest)), message)
    }

    /// One `actions:` entry: exactly one intervention, at a time, with an optional label.
    pub(in crate::scenario) fn action(&mut self, i: usize, a: RawAction) -> Result<Action, ScenarioError> {
        let idx = i.to_string();
        let line = self.lines.of(&["actions", &idx]);
        let at = At { i, idx, line };
        let given: Vec<&str> = [
            ("apply", a.apply.is_some()),
            ("kubectl", a.kubectl.is_some()),
            ("scale", a.scale.is_some()),
            ("delete", a.delete.is_some()),
            ("cordon", a.cordon.is_some()),
            ("uncordon", a.uncordon.is_some()),
            ("killNode", a.kill_node.is_some()),
            ("reviveNode", a.revive_node.is_some()),
            ("addNode", a.add_node.is_some()),
            ("fault", a.fault.is_some()),
            ("mode", a.mode.is_some()),
            ("app", a.app.is_some()),
        ]
        .into_iter()
        .filter_map(|(k, given)| given.then_some(k))
        .collect();
        if given.len() != 1 {
            let found = if given.is_empty() { "none".to_string() } else { given.join(" and ") };
            return Err(ScenarioError::at(
                line,
                format!(
                    "actions[{i}]: an action needs exactly one of apply, kubectl, scale, delete, cordon, uncordon, killNode, reviveNode, addNode, fault, mode, app (found {found})"
                ),
            ));
        }
        if a.follow_for.is_some() && a.kubectl.is_none() {
            let msg = format!(
                "{}: is for kubectl actions only (how long a command that keeps printing is followed before it is interrupted)",
                at.what("for")
            );
            return Err(self.err(&at, &["for"], msg));
        }
        let what = if let Some(m) = a.apply {
            self.apply(&at, m)?
        } else if let Some(k) = a.kubectl {
            self.kubectl(&at, &k)?
        } else if let Some(sc) = a.scale {
            self.scale(&at, sc)?
        } else if let Some(d) = a.delete {
            self.delete(&at, d)?
        } else if let Some(n) = a.cordon {
            self.cordon(&at, "cordon", n, true)?
        } else if let Some(n) = a.uncordon {
            self.cordon(&at, "uncordon", n, false)?
        } else if let Some(n) = a.kill_node {
            Intervention::KillNode(self.node_ref(&at, "killNode", n)?)
        } else if let Some(n) = a.revive_node {
            Intervention::ReviveNode(self.node_ref(&at, "reviveNode", n)?)
        } else if let Some(n) = a.add_node {
            self.add_node(&at, &n)?
        } else if let Some(f) = a.fault {
            self.fault(&at, f)?
        } else if let Some(m) = a.mode {
            self.mode(&at, m)?
        } else if let Some(x) = a.app {
            self.app(&at, x)?
        } else {
            unreachable!("exactly one action kind was given")
        };
        let label = a.label.map(|l| crate::limits::bound_message(l.trim()).into_owned()).filter(|l| !l.is_empty());
        let path = at.path(&[]);
        let ask = match a.ask {
            Some(raw) => Some(std::rc::Rc::new(super::expect::ask_checked(self.lines, &path, raw)?)),
            None => None,
        };
        let raw_expect = a.expect.unwrap_or_default();
        if raw_expect.len() > super::expect::MAX_EXPECTS {
            let msg = format!("{}: at most {} expectations a step", at.what("expect"), super::expect::MAX_EXPECTS);
            return Err(self.err(&at, &["expect"], msg));
        }
        let mut expect = Vec::with_capacity(raw_expect.len());
        for (j, raw) in raw_expect.into_iter().enumerate() {
            expect.push(super::expect::expect_checked(self.lines, &path, j, raw)?);
        }
        if ask.is_some() && expect.is_empty() {
            let msg = format!("{}: a question needs the step's expect: to check its answer", at.what("ask"));
            return Err(self.err(&at, &["ask"], msg));
        }
        let expect = expect.into();
        Ok(Action { at: a.at.0, what, label, line, stop_after: a.follow_for.map(|d| d.0), ask, expect })
    }

    fn apply(&self, at: &At, m: ManifestText) -> Result<Intervention, ScenarioError> {
        // Applied when the action runs (an error then is the timeline's), but held to the budgets now.
        crate::manifest::check_budgets(&m.0)
            .map_err(|e| manifest_error(self.lines, &at.path(&["apply"]), Some(at.line), &at.what("apply"), e))?;
        Ok(Intervention::Apply(m.0))
    }

    fn kubectl(&mut self, at: &At, k: &str) -> Result<Intervention, ScenarioError> {
        let command = check_kubectl(k, &mut self.accepted_words)
            .map_err(|e| self.err(at, &["kubectl"], format!("{}: {e}", at.what("kubectl"))))?;
        Ok(Intervention::Kubectl(command))
    }

    fn scale(&self, at: &At, sc: RawScale) -> Result<Intervention, ScenarioError> {
        let (kind, name) = match (sc.deployment, sc.replicaset) {
            (Some(d), None) => (Kind::Deployment, d),
            (None, Some(r)) => (Kind::ReplicaSet, r),
            _ => {
                let msg = format!("{}: name exactly one of deployment or replicaset", at.what("scale"));
                return Err(self.err(at, &["scale"], msg));
            }
        };
        check_name(self.lines, &at.path(&["scale"]), &at.what("scale"), &name)?;
        if sc.replicas > i32::MAX as u32 {
            return Err(ScenarioError::at(at.line, format!("{}: too many replicas", at.what("scale"))));
        }
        let ns = sc.namespace.unwrap_or_else(|| "default".into());
        Ok(Intervention::Scale { kind, key: ObjKey::new(&ns, &name), replicas: sc.replicas })
    }

    fn delete(&self, at: &At, d: RawDelete) -> Result<Intervention, ScenarioError> {
        let target = match (d.name, d.selector, d.one_of) {
            (Some(n), None, None) => {
                check_name(self.lines, &at.path(&["delete"]), &at.what("delete"), &n)?;
                DeleteTarget::Name(n)
            }
            (None, Some(Sel(sel, t)), None) => DeleteTarget::Selector(sel, t),
            (None, None, Some(Sel(sel, t))) => DeleteTarget::OneOf(sel, t),
            _ => {
                let msg = format!("{}: give exactly one of name, selector or oneOf", at.what("delete"));
                return Err(self.err(at, &["delete"], msg));
            }
        };
        if d.namespace.is_some() && !d.kind.0.namespaced() {
            let msg = format!("{}: a {} is not namespaced", at.what("delete"), d.kind.0.name());
            return Err(self.err(at, &["delete", "namespace"], msg));
        }
        Ok(Intervention::Delete { kind: d.kind.0, namespace: d.namespace, target, wait: d.wait.unwrap_or(true) })
    }

    fn cordon(&self, at: &At, key: &str, node: String, on: bool) -> Result<Intervention, ScenarioError> {
        check_name(self.lines, &at.path(&[]), &at.what(key), &node)?;
        Ok(Intervention::Cordon { node, on })
    }

    fn node_ref(&self, at: &At, key: &str, n: RawNodeRef) -> Result<NodeRef, ScenarioError> {
        Ok(match n {
            RawNodeRef::Name(n) => {
                check_name(self.lines, &at.path(&[]), &at.what(key), &n)?;
                NodeRef::Name(n)
            }
            RawNodeRef::OfPod(Sel(sel, text)) => NodeRef::OfPod(sel, text),
            RawNodeRef::Every => NodeRef::Every,
        })
    }

    fn add_node(&mut self, at: &At, n: &RawNode) -> Result<Intervention, ScenarioError> {
        self.node_count += 1;
        if self.node_count > MAX_NODES {
            let msg = format!("{}: kubeloop simulates at most {MAX_NODES} nodes", at.what("addNode"));
            return Err(ScenarioError::at(at.line, msg));
        }
        Ok(Intervention::AddNode(node_config(n, self.node_template, self.lines, &at.path(&["addNode"]))?))
    }

    fn process(&self, at: &At, key: &str, name: Option<&str>) -> Result<Option<HostId>, ScenarioError> {
        let Some(n) = name else { return Ok(None) };
        match process_id(n) {
            Some(h) => Ok(Some(h)),
            None => {
                let names: Vec<&str> = PROCESSES.iter().map(|(n, _)| *n).collect();
                let msg = format!(
                    "{}: no process {:?}; processes: {}",
                    at.what(&format!("fault.{key}")),
                    echo(n),
                    names.join(", ")
                );
                Err(self.err(at, &["fault", key], msg))
            }
        }
    }

    fn fault(&self, at: &At, f: RawFault) -> Result<Intervention, ScenarioError> {
        let crash = self.process(at, "crash", f.crash.as_deref())?;
        let restart = self.process(at, "restart", f.restart.as_deref())?;
        let informer = match f.informer.as_deref() {
            None => None,
            Some(t) => {
                let parsed = t.split_once('/').and_then(|(p, r)| {
                    let h = process_id(p)?;
                    crate::kubectl::resource::kind_of(r).ok().map(|k| (h, k))
                });
                let Some(x) = parsed else {
                    let names: Vec<&str> = PROCESSES.iter().map(|(n, _)| *n).collect();
                    let msg = format!(
                        "{}: {:?} is not PROCESS/RESOURCE (e.g. cp-1/pods; processes: {})",
                        at.what("fault.informer"),
                        echo(t),
                        names.join(", ")
                    );
                    return Err(self.err(at, &["fault", "informer"], msg));
                };
                Some(x)
            }
        };
        let api_latency = match f.api_latency {
            Some(Dur(l)) if l > MAX_API_LATENCY => {
                let msg = format!(
                    "{}: {} is too long: at most {} (kube-apiserver's default --request-timeout: a request that takes longer times out)",
                    at.what("fault.apiLatency"),
                    human_duration(l),
                    human_duration(MAX_API_LATENCY)
                );
                return Err(self.err(at, &["fault", "apiLatency"], msg));
            }
            l => l.map(|d| d.0),
        };
        let fa = FaultAction {
            drop_watch_events: f.drop_watch_events.map(|x| x.0),
            conflicts: f.conflicts.map(|x| x.0),
            api_latency,
            reject_pod_creates: f.reject_pod_creates,
            disconnect_watches: f.disconnect_watches,
            force_relist: f.force_relist,
            crash,
            restart,
            informer,
        };
        if fa == FaultAction::default() {
            return Err(ScenarioError::at(at.line, format!("{}: name at least one fault", at.what("fault"))));
        }
        Ok(Intervention::Fault(fa))
    }

    fn app(&self, at: &At, a: RawApp) -> Result<Intervention, ScenarioError> {
        let namespace = a.namespace.clone().unwrap_or_else(|| "default".into());
        let target = match (a.image, a.pod, a.pod_of) {
            (Some(i), None, None) => {
                if a.namespace.is_some() || a.container.is_some() {
                    let msg = format!("{}: an image rule has no namespace or container", at.what("app"));
                    return Err(self.err(at, &["app"], msg));
                }
                if i.trim().is_empty() {
                    return Err(self.err(at, &["app", "image"], format!("{}: an image is required", at.what("app"))));
                }
                AppTarget::Image(i)
            }
            (None, Some(name), None) => {
                check_name(self.lines, &at.path(&["app"]), &at.what("app"), &name)?;
                AppTarget::Pod { namespace, name }
            }
            (None, None, Some(Sel(selector, text))) => AppTarget::PodOf { namespace, selector, text },
            _ => {
                let msg = format!("{}: give exactly one of image, pod or podOf", at.what("app"));
                return Err(self.err(at, &["app"], msg));
            }
        };
        let check = |key: &str, v: Option<String>| -> Result<Option<bool>, ScenarioError> {
            match v.as_deref() {
                None => Ok(None),
                Some("fail") => Ok(Some(true)),
                Some("pass") => Ok(Some(false)),
                Some(o) => {
                    let msg = format!("{}: {:?} is not fail or pass", at.what(&format!("app.{key}")), echo(o));
                    Err(self.err(at, &["app", key], msg))
                }
            }
        };
        let nonzero = |d: Option<Dur>| d.map(|Dur(v)| (v > 0).then_some(v));
        let on_sigterm = match a.sigterm.as_deref() {
            None => None,
            Some("exit") => Some(None),
            Some("ignore") => Some(Some(Sigterm::Ignore)),
            Some(d) => match parse_duration(d) {
                Ok(ms) => Some(Some(Sigterm::ExitAfter(ms))),
                Err(_) => {
                    let msg = format!("{}: {:?} is not ignore, exit or a duration", at.what("app.sigterm"), echo(d));
                    return Err(self.err(at, &["app", "sigterm"], msg));
                }
            },
        };
        let patch = BehaviourPatch {
            readiness_fails: check("readiness", a.readiness)?,
            liveness_fails: check("liveness", a.liveness)?,
            starts_after: nonzero(a.starts_after),
            crash_after: nonzero(a.crash_after),
            exit_code: a.exit_code.map(Some),
            unpullable: a.pullable.map(|p| !p),
            on_sigterm,
            pre_stop_takes: a.pre_stop.map(|Dur(v)| Some(v)),
        };
        let crash = a.crash.unwrap_or(false);
        if patch.is_empty() && !crash {
            let msg = format!(
                "{}: say what the application does: readiness, liveness, startsAfter, crashAfter, exitCode, pullable, crash, sigterm or preStop",
                at.what("app")
            );
            return Err(ScenarioError::at(at.line, msg));
        }
        if crash && matches!(target, AppTarget::Image(_)) {
            let msg = format!("{}: crash needs a pod (pod or podOf), not an image", at.what("app"));
            return Err(self.err(at, &["app", "crash"], msg));
        }
        Ok(Intervention::App(AppAction { target, container: a.container, patch, crash }))
    }

    fn period(&self, at: &At, key: &str, d: Option<Dur>, off: bool) -> Result<Option<Millis>, ScenarioError> {
        let Some(Dur(p)) = d else { return Ok(None) };
        check_period(p, off, key == "resyncPeriod")
            .map(Some)
            .map_err(|e| self.err(at, &["mode", key], format!("{}: {e}", at.what(&format!("mode.{key}")))))
    }

    fn mode(&self, at: &At, m: RawMode) -> Result<Intervention, ScenarioError> {
        let trigger = match &m.trigger {
            Some(t) => Some(
                parse_trigger(t).map_err(|e| self.err(at, &["mode", "trigger"], format!("{}.{e}", at.what("mode"))))?,
            ),
            None => None,
        };
        let poll_period = self.period(at, "pollPeriod", m.poll_period, false)?;
        if poll_period.is_some() && m.observe.as_deref() != Some("polling") {
            let msg = format!("{}: pollPeriod needs observe: polling (in the same action)", at.what("mode"));
            return Err(self.err(at, &["mode", "pollPeriod"], msg));
        }
        let observe = match m.observe.as_deref() {
            None => None,
            Some("informer") => Some(ObserveMode::Informer),
            Some("polling") => {
                Some(ObserveMode::Polling { period: poll_period.unwrap_or(crate::sim::DEFAULT_POLL_PERIOD) })
            }
            Some(o) => {
                let msg =
                    format!("{}: {:?} is not an observe mode: informer or polling", at.what("mode.observe"), echo(o));
                return Err(self.err(at, &["mode", "observe"], msg));
            }
        };
        let ma = ModeAction {
            trigger,
            observe,
            relist_period: self.period(at, "relistPeriod", m.relist_period, true)?,
            resync_period: self.period(at, "resyncPeriod", m.resync_period, true)?,
        };
        if ma == ModeAction::default() {
            return Err(ScenarioError::at(at.line, format!("{}: name at least one mode", at.what("mode"))));
        }
        Ok(Intervention::Mode(ma))
    }
}
