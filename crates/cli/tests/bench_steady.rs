//! `kubeloop bench --steady`: its options and the shape of what it prints (never its timings).

use std::process::{Command, Output};

fn kubeloop(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kubeloop")).args(args).output().unwrap_or_else(|e| panic!("running kubeloop: {e}"))
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The value of the line `label` (the text after it), `None` when no line starts with it.
fn line<'a>(out: &'a str, label: &str) -> Option<&'a str> {
    out.lines().find_map(|l| l.strip_prefix(label)).map(str::trim)
}

#[test]
fn bad_steady_options_exit_2_with_what_is_wrong() {
    let cases: [(&[&str], &str); 8] = [
        (&["--steady"], "bench: --steady needs a value"),
        (&["--steady", "soon"], "bench: --steady: invalid duration \"soon\""),
        (&["--steady", "0"], "bench: --steady: \"0\" is no time"),
        (&["--steady=0s"], "bench: --steady: \"0s\" is no time"),
        (&["--steady", "-1h"], "bench: --steady: invalid duration \"-1h\": must not be negative"),
        (&["--steady", "721h"], "bench: --steady: at most 720h"),
        (
            &["--steady", "1h", "--workload", "busy"],
            "bench: --workload: unknown workload \"busy\": idle, churn or faulted",
        ),
        (&["--workload", "churn"], "bench: --workload needs --steady"),
    ];
    for (extra, want) in cases {
        let mut args = vec!["bench", "--nodes", "2", "--pods", "4"];
        args.extend_from_slice(extra);
        let out = kubeloop(&args);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.starts_with(&format!("error: {want}")), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}: refused before the cold start runs: {}", text(&out.stdout));
    }
}

#[test]
fn a_tiny_steady_bench_prints_its_own_lines_and_the_same_history_twice() {
    let cold = kubeloop(&["bench", "--nodes", "3", "--pods", "30", "--seed", "4"]);
    assert_eq!(cold.status.code(), Some(0), "{}", text(&cold.stderr));
    let cold = text(&cold.stdout);
    assert!(line(&cold, "steady").is_none(), "no steady lines without --steady: {cold}");
    let runs: Vec<String> = (0..2)
        .map(|_| {
            let out = kubeloop(&[
                "bench",
                "--nodes",
                "3",
                "--pods",
                "30",
                "--seed",
                "4",
                "--steady",
                "30m",
                "--workload",
                "churn",
            ]);
            assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
            text(&out.stdout)
        })
        .collect();
    let s = &runs[0];
    // The cold start is printed as without --steady, then the steady phase's own lines, in this order.
    let mut labels = vec!["history hash:", "peak RSS:", "steady:", "steady wall time:"];
    if cfg!(unix) {
        // getrusage's user and system time.
        labels.push("steady cpu time:");
    }
    labels.extend([
        "steady speed:",
        "steady events:",
        "steady events/s:",
        "steady api writes:",
        "steady pods:",
        "steady history hash:",
    ]);
    let at: Vec<Option<usize>> = labels.iter().map(|l| s.lines().position(|x| x.starts_with(l))).collect();
    assert!(at.iter().all(Option::is_some), "every line printed: {s}");
    assert!(at.windows(2).all(|w| w[0] < w[1]), "in order: {s}");
    assert_eq!(
        line(s, "history hash:"),
        line(&cold, "history hash:"),
        "the steady phase leaves the cold start as it was"
    );
    assert!(line(s, "steady:").is_some_and(|v| v.starts_with("30m simulated, workload churn, from ")), "{s}");
    assert!(line(s, "steady speed:").is_some_and(|v| v.ends_with("x real time")), "{s}");
    let events: u64 = line(s, "steady events:").and_then(|v| v.parse().ok()).expect("steady events: a count");
    assert!(events > 0, "{s}");
    let writes: u64 = line(s, "steady api writes:").and_then(|v| v.parse().ok()).expect("steady api writes: a count");
    assert!(writes > 0, "{s}");
    assert_ne!(line(s, "steady history hash:"), line(s, "history hash:"), "the steady phase made history: {s}");
    // What the engine did is the same on both runs; only the wall-clock figures may differ.
    for label in
        ["history hash:", "steady:", "steady events:", "steady api writes:", "steady pods:", "steady history hash:"]
    {
        assert_eq!(line(&runs[0], label), line(&runs[1], label), "{label}\n{}\n{}", runs[0], runs[1]);
    }
    // Churn does what idle does not: the same steady time idle writes less and ends at another history.
    let idle = kubeloop(&["bench", "--nodes", "3", "--pods", "30", "--seed", "4", "--steady", "30m"]);
    let idle = text(&idle.stdout);
    assert!(line(&idle, "steady:").is_some_and(|v| v.starts_with("30m simulated, workload idle, ")), "{idle}");
    let idle_writes: u64 = line(&idle, "steady api writes:").and_then(|v| v.parse().ok()).expect("a count");
    assert!(idle_writes < writes, "idle {idle_writes} writes, churn {writes}");
    assert_ne!(line(&idle, "steady history hash:"), line(s, "steady history hash:"));
}
