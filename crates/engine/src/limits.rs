//! kubeloop's bounds, in one place: how much a user's input, and a long simulated run, may make the engine hold or
//! do. Kubernetes' scalability envelope bounds the cluster; the rest bound what a hostile or unlucky input can cost
//! (text, messages, outputs). Anything here that is kubeloop's own (not an upstream limit) says so.

use crate::api::Kind;

/// Kubernetes' scalability envelope, enforced as kubeloop's caps.
pub const MAX_NODES: usize = 5_000;
pub const MAX_PODS: usize = 150_000;

/// Objects of each kind the API store holds at most: Kubernetes' scalability envelope where it names one (nodes,
/// pods, namespaces), kubeloop's own bound for the rest (sized so the envelope's cluster fits: 11 ReplicaSets per
/// Deployment with the default revision history, five Events per pod within their 1 h TTL). A create beyond it is
/// refused for every client, a controller's surge included.
pub fn max_objects(kind: Kind) -> usize {
    match kind {
        Kind::Node => MAX_NODES,
        Kind::Pod => MAX_PODS,
        Kind::Namespace => MAX_NAMESPACES,
        Kind::Deployment => MAX_DEPLOYMENTS,
        Kind::ReplicaSet => MAX_REPLICASETS,
        Kind::Lease => MAX_NODES + 100,
        Kind::Event => MAX_EVENTS,
    }
}

/// Namespaces (the scalability envelope: 10,000).
pub const MAX_NAMESPACES: usize = 10_000;
/// Deployments and ReplicaSets (kubeloop's own bounds).
pub const MAX_DEPLOYMENTS: usize = 10_000;
pub const MAX_REPLICASETS: usize = 11 * MAX_DEPLOYMENTS;
/// Event objects (kubeloop's own bound; Events also expire after their 1 h TTL).
pub const MAX_EVENTS: usize = 1_000_000;

/// Why a create is refused at [`max_objects`], naming whose bound it is.
pub fn refusal(kind: Kind, cap: usize) -> String {
    let what = match kind {
        Kind::Node | Kind::Pod | Kind::Namespace => "Kubernetes' scalability envelope",
        _ => "kubeloop's own bound",
    };
    format!("kubeloop simulates at most {cap} {} ({what})", kind.plural())
}

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

/// The longest piece of user text an error message repeats (kubeloop's own; longer text is cut with a note).
pub const ECHO_MAX_CHARS: usize = 120;

/// User text as an error message repeats it: at most [`ECHO_MAX_CHARS`] characters, cut with a note of how much
/// was left out, so a message never grows with its input.
pub fn echo(text: &str) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(ECHO_MAX_CHARS) {
        None => std::borrow::Cow::Borrowed(text),
        Some((cut, _)) => std::borrow::Cow::Owned(format!("{}... ({} more bytes)", &text[..cut], text.len() - cut)),
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
}
