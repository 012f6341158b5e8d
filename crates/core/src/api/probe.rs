//! `v1.Probe`: a container's liveness, readiness and startup checks, with the handler (`exec`, `httpGet`,
//! `tcpSocket`, `grpc`) and the timing fields the kubelet's prober follows. Defaults are SetDefaults_Probe's and
//! SetDefaults_HTTPGetAction's (applied on create, like every default).

use serde::Serialize;

#[cfg(any(test, feature = "oracle"))]
use serde::Deserialize;

use super::meta::is_empty_str;
use super::{IntOrString, Str};

fn is_zero(v: &i32) -> bool {
    *v == 0
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct Probe {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exec: Option<ExecAction>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http_get: Option<HttpGetAction>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tcp_socket: Option<TcpSocketAction>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grpc: Option<GrpcAction>,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub initial_delay_seconds: i32,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub timeout_seconds: i32,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub period_seconds: i32,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub success_threshold: i32,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub failure_threshold: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub termination_grace_period_seconds: Option<i64>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct ExecAction {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub command: Vec<Str>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct HttpGetAction {
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub path: Str,
    pub port: IntOrString,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub host: Str,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub scheme: Str,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub http_headers: Vec<HttpHeader>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
pub struct HttpHeader {
    #[serde(default)]
    pub name: Str,
    #[serde(default)]
    pub value: Str,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct TcpSocketAction {
    pub port: IntOrString,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub host: Str,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct GrpcAction {
    pub port: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service: Option<Str>,
}

/// `v1.Lifecycle`: the hooks the kubelet runs after a container starts and before it stops it.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct Lifecycle {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub post_start: Option<LifecycleHandler>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pre_stop: Option<LifecycleHandler>,
}

/// `v1.LifecycleHandler`: one of exec, httpGet, tcpSocket (deprecated, accepted and not run) or sleep.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct LifecycleHandler {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exec: Option<ExecAction>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http_get: Option<HttpGetAction>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tcp_socket: Option<TcpSocketAction>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sleep: Option<SleepAction>,
}

/// `v1.SleepAction`: the hook waits this many seconds.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
pub struct SleepAction {
    pub seconds: i64,
}

impl LifecycleHandler {
    /// The handler types set, in upstream's order.
    pub fn handlers(&self) -> Vec<&'static str> {
        let set = [self.exec.is_some(), self.http_get.is_some(), self.tcp_socket.is_some(), self.sleep.is_some()];
        ["exec", "httpGet", "tcpSocket", "sleep"].into_iter().zip(set).filter(|(_, on)| *on).map(|(n, _)| n).collect()
    }

    /// SetDefaults_HTTPGetAction, which applies to a hook's httpGet as to a probe's.
    pub fn set_defaults(&mut self) {
        if let Some(h) = &mut self.http_get {
            if h.path.is_empty() {
                h.path = Str::from("/");
            }
            if h.scheme.is_empty() {
                h.scheme = Str::from("HTTP");
            }
        }
    }

    /// How long the hook runs when nothing else says (kubeloop's own reading, no process being real): a sleep
    /// action its seconds; an exec hook whose command runs `sleep N` (`["sh", "-c", "sleep 15"]`, the common
    /// form) N seconds; anything else at once.
    pub fn takes(&self) -> crate::time::Millis {
        if let Some(s) = &self.sleep {
            return crate::time::seconds(s.seconds.max(0));
        }
        let Some(e) = &self.exec else { return 0 };
        let words = e.command.iter().flat_map(|c| c.split(|ch: char| ch.is_whitespace() || ch == ';' || ch == '&'));
        let mut after_sleep = false;
        for w in words.filter(|w| !w.is_empty()) {
            if after_sleep {
                return match w.parse::<f64>() {
                    Ok(secs) if secs.is_finite() && secs >= 0.0 => (secs.min(1e9) * 1000.0) as crate::time::Millis,
                    _ => 0,
                };
            }
            after_sleep = w == "sleep" || w.ends_with("/sleep");
        }
        0
    }
}

/// The three probes, as the kubelet's prober names them in events (`Readiness probe failed: ...`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ProbeType {
    Startup,
    Liveness,
    Readiness,
}

impl ProbeType {
    pub const ALL: [ProbeType; 3] = [ProbeType::Startup, ProbeType::Liveness, ProbeType::Readiness];

    /// `Liveness`, `Readiness`, `Startup` (the event message's first word).
    pub fn as_str(self) -> &'static str {
        match self {
            ProbeType::Startup => "Startup",
            ProbeType::Liveness => "Liveness",
            ProbeType::Readiness => "Readiness",
        }
    }

    /// The lower-case name in `failed <name> probe, will be restarted`.
    pub fn lower(self) -> &'static str {
        match self {
            ProbeType::Startup => "startup",
            ProbeType::Liveness => "liveness",
            ProbeType::Readiness => "readiness",
        }
    }
}

impl Probe {
    /// SetDefaults_Probe and SetDefaults_HTTPGetAction.
    /// Whether [`Probe::set_defaults`] would change anything.
    pub fn needs_defaults(&self) -> bool {
        let (t, p, s, f) = (self.timeout_seconds, self.period_seconds, self.success_threshold, self.failure_threshold);
        [t, p, s, f].contains(&0) || self.http_get.as_ref().is_some_and(|h| h.path.is_empty() || h.scheme.is_empty())
    }

    pub fn set_defaults(&mut self) {
        let set = |v: &mut i32, d: i32| {
            if *v == 0 {
                *v = d
            }
        };
        set(&mut self.timeout_seconds, 1);
        set(&mut self.period_seconds, 10);
        set(&mut self.success_threshold, 1);
        set(&mut self.failure_threshold, 3);
        if let Some(h) = &mut self.http_get {
            if h.path.is_empty() {
                h.path = Str::from("/");
            }
            if h.scheme.is_empty() {
                h.scheme = Str::from("HTTP");
            }
        }
    }

    /// The handler types set, in upstream's order.
    pub fn handlers(&self) -> Vec<&'static str> {
        let mut v = Vec::new();
        if self.exec.is_some() {
            v.push("exec");
        }
        if self.http_get.is_some() {
            v.push("httpGet");
        }
        if self.tcp_socket.is_some() {
            v.push("tcpSocket");
        }
        if self.grpc.is_some() {
            v.push("grpc");
        }
        v
    }

    /// `kubectl describe pod`'s line: `http-get http://:8080/healthz delay=0s timeout=1s period=10s #success=1
    /// #failure=3` (pkg/describe `DescribeProbe`).
    pub fn describe(&self) -> String {
        let attrs = format!(
            "delay={}s timeout={}s period={}s #success={} #failure={}",
            self.initial_delay_seconds,
            self.timeout_seconds,
            self.period_seconds,
            self.success_threshold,
            self.failure_threshold
        );
        let port = |p: &IntOrString| match p {
            IntOrString::Int(i) => i.to_string(),
            IntOrString::String(s) => s.to_string(),
        };
        if let Some(e) = &self.exec {
            let cmd: Vec<&str> = e.command.iter().map(|s| &**s).collect();
            format!("exec [{}] {attrs}", cmd.join(" "))
        } else if let Some(h) = &self.http_get {
            let scheme = h.scheme.to_lowercase();
            format!("http-get {scheme}://{}:{}{} {attrs}", h.host, port(&h.port), h.path)
        } else if let Some(t) = &self.tcp_socket {
            format!("tcp-socket {}:{} {attrs}", t.host, port(&t.port))
        } else if let Some(g) = &self.grpc {
            format!("grpc <pod>:{} {} {attrs}", g.port, g.service.as_deref().unwrap_or(""))
        } else {
            format!("unknown {attrs}")
        }
    }

    /// The failure text a simulated failing check gives, as the kubelet's prober words it for this handler (the
    /// reason is kubeloop's own: the simulated application answers with an error).
    pub fn failure_output(&self, pod_ip: &str) -> String {
        let port = |p: &IntOrString| match p {
            IntOrString::Int(i) => i.to_string(),
            IntOrString::String(s) => s.to_string(),
        };
        if self.http_get.is_some() {
            "HTTP probe failed with statuscode: 503".to_string()
        } else if let Some(t) = &self.tcp_socket {
            let host = if t.host.is_empty() { pod_ip } else { &t.host };
            format!("dial tcp {host}:{}: connect: connection refused", port(&t.port))
        } else if self.grpc.is_some() {
            "service unhealthy (responded with \"NOT_SERVING\")".to_string()
        } else {
            String::new()
        }
    }
}
