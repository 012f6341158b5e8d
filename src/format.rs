//! How the page writes figures and engine values: CPU and memory, counts, times and durations, labels and taints.

use kubeloop_engine::api::{Object, PodPhase};
use kubeloop_engine::time::Millis;

pub fn phase_glyph(p: PodPhase) -> &'static str {
    match p {
        PodPhase::Pending => "P",
        PodPhase::Running => "R",
        PodPhase::Succeeded => "S",
        PodPhase::Failed => "F",
        PodPhase::Unknown => "?",
    }
}

/// Millicores as Kubernetes prints them (`250m`, `4`, `1.5`).
pub fn fmt_cpu(milli: i64) -> String {
    if milli % 1000 == 0 {
        format!("{}", milli / 1000)
    } else if milli < 1000 {
        format!("{milli}m")
    } else {
        format!("{:.2}", milli as f64 / 1000.0).trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// Bytes in binary units (`128Mi`, `15.9Gi`).
pub fn fmt_mem(bytes: i64) -> String {
    const KI: f64 = 1024.0;
    let b = bytes as f64;
    let (v, unit) = if b >= KI * KI * KI {
        (b / (KI * KI * KI), "Gi")
    } else if b >= KI * KI {
        (b / (KI * KI), "Mi")
    } else if b >= KI {
        (b / KI, "Ki")
    } else {
        (b, "")
    };
    if (v - v.round()).abs() < 0.05 {
        format!("{}{unit}", v.round() as i64)
    } else {
        format!("{v:.1}{unit}")
    }
}

/// `72914` as `72,914`.
pub fn fmt_thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Simulated time in seconds with one decimal (`12.3 s`).
pub fn fmt_secs(t: Millis) -> String {
    format!("{}.{} s", t / 1000, (t % 1000) / 100)
}

/// A compact clock for narrow columns: `12.3 s` up to 100 s, then `12m05s`, then `52h59m`.
pub fn fmt_clock(t: Millis) -> String {
    if t < 100_000 {
        fmt_secs(t)
    } else if t < 3_600_000 {
        format!("{}m{:02}s", t / 60_000, (t % 60_000) / 1000)
    } else {
        format!("{}h{:02}m", t / 3_600_000, (t % 3_600_000) / 60_000)
    }
}

/// A duration for people (`350 ms`, `4.2 s`, `3m10s`, `17.2 h`).
pub fn fmt_dur(ms: Millis) -> String {
    if ms < 1000 {
        format!("{ms} ms")
    } else if ms < 60_000 {
        format!("{:.1} s", ms as f64 / 1000.0)
    } else if ms < 3_600_000 {
        format!("{}m{:02}s", ms / 60_000, (ms % 60_000) / 1000)
    } else {
        format!("{:.1} h", ms as f64 / 3_600_000.0)
    }
}

const WELL_KNOWN_LABEL_PREFIXES: [&str; 2] = ["kubernetes.io/", "beta.kubernetes.io/"];

pub fn user_labels(o: &Object) -> Vec<String> {
    o.meta()
        .labels
        .iter()
        .filter(|(k, _)| !WELL_KNOWN_LABEL_PREFIXES.iter().any(|p| k.starts_with(p)))
        .map(|(k, v)| format!("{k}={v}"))
        .collect()
}

pub fn fmt_taint(t: &kubeloop_engine::api::Taint) -> String {
    if t.value.is_empty() {
        format!("{}:{}", t.key, t.effect)
    } else {
        format!("{}={}:{}", t.key, t.value, t.effect)
    }
}
