//! kubeloop's bounds, in one place: how much a user's input, and a long simulated run, may make the engine hold or
//! do. Kubernetes' scalability envelope bounds the cluster; the rest bound what a hostile or unlucky input can cost
//! (text, messages, outputs). Anything here that is kubeloop's own (not an upstream limit) says so.

/// Kubernetes' scalability envelope, enforced as kubeloop's caps.
pub const MAX_NODES: usize = 5_000;
pub const MAX_PODS: usize = 150_000;

// Objects of each kind the API store holds at most (each kind's row in `api/kinds.rs` names its bound, from
// these): Kubernetes' scalability envelope where it names one (nodes, pods, namespaces, Services), kubeloop's own
// bound for the rest (sized so the envelope's cluster fits: 11 ReplicaSets per Deployment with the default revision
// history, five Events per pod within their 1 h TTL). A create beyond it is refused for every client, a
// controller's surge included.

/// Objects of each kind kubeloop stores without simulating it (PriorityClasses, ...): kubeloop's own bound.
pub const MAX_STORED_OBJECTS: usize = 1_000;

/// Services (the scalability envelope: 10,000).
pub const MAX_SERVICES: usize = 10_000;
/// ConfigMaps, and Secrets (kubeloop's own bound for each; each holds at most 1 MiB of data, upstream's limit):
/// 10,000 of a person's, and room for the cluster's own (kube-system's add-ons bring two ConfigMaps).
pub const MAX_CONFIG_OBJECTS: usize = 10_000 + 16;

/// Namespaces (the scalability envelope: 10,000).
pub const MAX_NAMESPACES: usize = 10_000;
/// Deployments and ReplicaSets (kubeloop's own bounds).
pub const MAX_DEPLOYMENTS: usize = 10_000;
pub const MAX_REPLICASETS: usize = 11 * MAX_DEPLOYMENTS;
/// DaemonSets (kubeloop's own bound: each runs a pod on up to every node).
pub const MAX_DAEMONSETS: usize = 1_000;
/// StatefulSets (kubeloop's own bound).
pub const MAX_STATEFULSETS: usize = 1_000;
/// PersistentVolumeClaims and PersistentVolumes (kubeloop's own bound: a StatefulSet's pods have a claim each per
/// template, and the provisioner makes a volume per claim).
pub const MAX_VOLUMES: usize = 20_000;
/// Jobs (kubeloop's own bound).
pub const MAX_JOBS: usize = 10_000;
/// CronJobs (kubeloop's own bound).
pub const MAX_CRONJOBS: usize = 1_000;
/// Event objects (kubeloop's own bound; Events also expire after their 1 h TTL).
pub const MAX_EVENTS: usize = 1_000_000;

/// Images a node keeps (kubeloop's stand-in for the kubelet's disk-usage image garbage collection, which starts
/// at 85 % of the image disk: kubeloop has no disk). Beyond it, images no pod on the node uses go, least recently
/// used first, and a later pod of such an image pulls it again.
pub const MAX_IMAGES_PER_NODE: usize = 50;

/// What one kubectl command prints at most (kubeloop's own bound; real kubectl prints everything): the output of
/// `get -o yaml` or `describe` over a whole large cluster stops here, with a note saying how many objects were
/// left out, so it is never built whole. A following command's output is bounded the same way per poll.
pub const OUTPUT_MAX_BYTES: usize = 2 << 20;

/// Events a watch may hold undelivered before the API server ends it (the watch cache terminates a watcher that
/// falls too far behind; its reader re-watches from the last resourceVersion it saw, or relists on 410 Gone). The
/// cacher's own bound is a short channel and a timeout; this is kubeloop's, sized to the watch cache's capacity so
/// no normal burst reaches it.
pub const WATCH_BUFFER_MAX: usize = 100 * 1024;
/// The most text one YAML input may hold: a manifest text (the editor's, `kubectl apply -f`, a scenario's
/// `manifests:` or `apply:`) or a scenario file. kubeloop's own: 4 MiB, above kube-apiserver's 3 MiB request body
/// limit, so any object a real cluster accepts fits; larger text is refused before it is parsed.
pub const MAX_YAML_BYTES: usize = 4 * 1024 * 1024;
/// The most bytes of files `kubeloop run` reads for a scenario's `kubectl -f` actions over one run (kubeloop's
/// own: 16 texts of [`MAX_YAML_BYTES`]), so that many actions reading the same large file cannot keep a run parsing
/// for hours.
pub const MAX_FILE_BYTES_PER_RUN: usize = 16 * MAX_YAML_BYTES;
/// The most documents (`---`-separated objects) one manifest text may hold. kubeloop's own: twice the node cap,
/// so a manifest of every node kubeloop simulates and their workloads fits.
pub const MAX_YAML_DOCUMENTS: usize = 10_000;
/// The deepest nesting of YAML collections (block or flow mappings and sequences) in one document. kubeloop's own:
/// the deepest Kubernetes objects kubeloop reads nest about a dozen levels (a pod's node affinity); serde_yaml
/// itself stops at 128.
pub const MAX_YAML_DEPTH: usize = 64;
/// The most YAML nodes (scalars, mappings and lists) in one text (kubeloop's own). serde_yaml holds every event of a
/// document at once and builds a value of each, so this bounds what a text within [`MAX_YAML_BYTES`] costs however
/// densely it packs its nodes (`[a,a,a,...]` has one every two bytes): a Deployment has a few dozen nodes, and half
/// a million is a manifest of thousands of objects.
pub const MAX_YAML_NODES: usize = 500_000;
/// The most YAML directives (`%YAML`, `%TAG` lines) one text may hold. kubeloop's own: a manifest needs none.
pub const MAX_YAML_DIRECTIVES: usize = 16;

/// The longest piece of user text an error message repeats (kubeloop's own; longer text is cut with a note).
pub const ECHO_MAX_CHARS: usize = 120;

/// The longest duration kubeloop reads (`2562047h47m16.854s`): Go's, whose `time.Duration` counts nanoseconds in an
/// int64, so that kubectl and kubeloop refuse the same durations as too large. Adding it to any simulated instant
/// of a run (at most 30 days) cannot overflow.
pub const MAX_DURATION: u64 = i64::MAX as u64 / 1_000_000;

/// The shortest period of a scenario's `mode:` (`pollPeriod`, `relistPeriod`, `resyncPeriod`; 0 turns the last two
/// off). For `resyncPeriod` it is client-go's `minimumResyncPeriod` (upstream raises a shorter one to 1 s); for the
/// others it is kubeloop's own: every poll or relist LISTs every resource its informers read, and a shorter period
/// would flood a run with requests and events.
pub const MIN_PERIOD: u64 = 1_000;
/// The longest period of a scenario's `mode:`: the longest run (30 days); a longer one would never come.
pub const MAX_PERIOD: u64 = 30 * 24 * 3_600_000;
/// The most latency a scenario's `fault: {apiLatency}` adds to a request: kube-apiserver's default
/// `--request-timeout` (1 minute); a request that takes longer times out.
pub const MAX_API_LATENCY: u64 = 60_000;

/// The most simulation events one `kubeloop run` (or `kubeloop kubectl`) processes by default (kubeloop's own work
/// budget, about a minute of a release build; `--max-events` sets another, 0 none): a scenario that asks for more
/// (thousands of nodes for days) is refused before it starts when even its lease renewals alone would exceed it,
/// and otherwise stops when it reaches it, saying so. `kubeloop soak` is the command for long, large runs.
pub const MAX_RUN_EVENTS: u64 = 10_000_000;
/// The fewest simulation events one node costs per simulated hour: its kubelet's Lease renewals every 10 s
/// (360) alone; with its status, its pods and the control plane's watch deliveries it is two to three times that.
pub const EVENTS_PER_NODE_HOUR: u64 = 360;

/// The most entries a run's timeline keeps (kubeloop's own): the first half and the last half, with a note of how
/// many were left out between them. A long run with a command that keeps printing (`kubectl get pods -w` for 30
/// days) or a busy cluster's events would otherwise grow without bound.
pub const MAX_TIMELINE_ENTRIES: usize = 100_000;
/// The most commands of a scenario that keep printing at once (`get -w`, `rollout status`, `drain`; kubeloop's
/// own): each is polled every 100 ms of simulated time. A further one prints what it prints at once and is not
/// followed (the timeline says so).
pub const MAX_FOLLOWS: usize = 16;

/// The longest error message about user input (kubeloop's own): a message that would be longer, with several
/// pieces of user text or a parser's own wording of it, is cut with a note of how much was left out.
pub const MAX_MESSAGE_CHARS: usize = 1_000;

/// User text as an error message repeats it: at most [`ECHO_MAX_CHARS`] characters, cut with a note of how much
/// was left out, so a message never grows with its input. Characters are counted as a quoted message shows them
/// (`{:?}`: a control character is `\u{1d}`, seven), so the piece stays bounded quoted or not.
pub fn echo(text: &str) -> std::borrow::Cow<'_, str> {
    let mut shown = 0;
    for (i, c) in text.char_indices() {
        shown += c.escape_debug().count();
        if shown > ECHO_MAX_CHARS {
            return std::borrow::Cow::Owned(format!("{}... ({} more bytes)", &text[..i], text.len() - i));
        }
    }
    std::borrow::Cow::Borrowed(text)
}

/// An error message about user input, bounded: every quoted piece of it (`"..."` or `` `...` ``: the way serde,
/// kubectl and kubeloop quote user text) longer than twice [`ECHO_MAX_CHARS`] is cut like [`echo`] cuts it, and
/// the message itself at [`MAX_MESSAGE_CHARS`]. For messages that may repeat user text without going through
/// [`echo`] (a parser's own wording: `invalid type: string "..."`, `unknown field `...``).
pub fn bound_message(message: &str) -> std::borrow::Cow<'_, str> {
    let long_run = 2 * ECHO_MAX_CHARS;
    if message.len() <= long_run {
        return std::borrow::Cow::Borrowed(message);
    }
    let mut out = String::new();
    let mut rest = message;
    while let Some(open) = rest.find(['"', '`']) {
        let quote = rest[open..].chars().next().unwrap_or('"');
        out.push_str(&rest[..=open]);
        let body = &rest[open + 1..];
        // The closing quote: the next one not escaped by a backslash (serde quotes strings as Rust literals).
        let mut escaped = false;
        let close = body.char_indices().find_map(|(i, c)| {
            let end = !escaped && c == quote;
            escaped = !escaped && c == '\\';
            end.then_some(i)
        });
        let (run, after) = match close {
            Some(i) => (&body[..i], &body[i..]),
            None => (body, ""),
        };
        if run.chars().nth(long_run).is_some() {
            out.push_str(&echo(run));
        } else {
            out.push_str(run);
        }
        // The closing quote is copied with what follows it.
        match after.strip_prefix(quote) {
            Some(tail) => {
                out.push(quote);
                rest = tail;
            }
            None => rest = after,
        }
        if out.len() > 4 * MAX_MESSAGE_CHARS {
            break;
        }
    }
    out.push_str(rest);
    match out.char_indices().nth(MAX_MESSAGE_CHARS) {
        None => std::borrow::Cow::Owned(out),
        Some((cut, _)) => std::borrow::Cow::Owned(format!("{}... ({} more bytes)", &out[..cut], out.len() - cut)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn echo_keeps_short_text_and_cuts_long_text_on_a_char_boundary() {
        assert_eq!(echo("web"), "web");
        let long = "é".repeat(1000);
        let e = echo(&long);
        assert!(e.starts_with(&"é".repeat(ECHO_MAX_CHARS)));
        assert!(e.ends_with("... (1760 more bytes)"), "{e}");
        assert!(e.len() < 400);
    }

    #[test]
    fn messages_cut_long_quoted_text_and_stay_bounded() {
        assert_eq!(bound_message("unknown field `x`, expected `a`"), "unknown field `x`, expected `a`");
        let long = "y".repeat(10_000);
        let m = bound_message(&format!("invalid type: string \"{long}\", expected a duration")).into_owned();
        assert!(m.starts_with(&format!("invalid type: string \"{}... (9880 more bytes)\"", "y".repeat(120))), "{m}");
        assert!(m.ends_with("\", expected a duration"), "{m}");
        let m = bound_message(&format!("unknown field `{long}`, expected one of `at`")).into_owned();
        assert!(m.ends_with("more bytes)`, expected one of `at`"), "{m}");
        // Escaped quotes stay inside the run; an unclosed quote runs to the end.
        let m = bound_message(&format!("bad \"a\\\"{long}\" end")).into_owned();
        assert!(m.starts_with("bad \"a\\\"yyy") && m.ends_with("more bytes)\" end"), "{m}");
        let m = bound_message(&format!("bad `{long}")).into_owned();
        assert!(m.ends_with("(9880 more bytes)"), "{m}");
        // Unquoted, or many quoted pieces: the whole message is cut.
        let m = bound_message(&format!("unknown flag: --{long}")).into_owned();
        assert!(m.chars().count() < MAX_MESSAGE_CHARS + 30 && m.ends_with(" more bytes)"), "{m}");
        let many = format!("\"{}\" ", "z".repeat(200)).repeat(10_000);
        assert!(bound_message(&many).len() < MAX_MESSAGE_CHARS + 30);
    }
}
