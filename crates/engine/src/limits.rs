//! kubeloop's bounds, in one place: how much a user's input, and a long simulated run, may make the engine hold or
//! do. Kubernetes' scalability envelope bounds the cluster; the rest bound what a hostile or unlucky input can cost
//! (text, messages, outputs). Anything here that is kubeloop's own (not an upstream limit) says so.

/// Kubernetes' scalability envelope, enforced as kubeloop's caps.
pub const MAX_NODES: usize = 5_000;
pub const MAX_PODS: usize = 150_000;

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
