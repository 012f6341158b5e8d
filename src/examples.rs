//! The manifests of the examples menu. Choosing one fills the editor; nothing is applied until Apply.

/// One entry of the examples menu.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Example {
    pub id: &'static str,
    pub title: &'static str,
    pub yaml: &'static str,
}

/// The web Deployment's document (3 nginx replicas), shared by the page's default manifest and the lessons that
/// run it next to something else.
#[macro_export]
macro_rules! web_deployment {
    () => {
        "\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    app: web
spec:
  replicas: 3
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
        resources:
          requests:
            cpu: 250m
            memory: 128Mi
"
    };
}

/// The Deployment applied when the page opens.
pub const WEB: &str =
    concat!("# A web tier: 3 nginx replicas.\n# Change replicas, then Apply (Ctrl+Enter).\n", web_deployment!());

const TOO_BIG: &str = "\
# Each pod requests 6 CPUs; nodes have 4.
# The scheduler finds no node: the pods
# stay Pending, FailedScheduling repeats
# with backoff (1 s doubling to 10 s).
apiVersion: apps/v1
kind: Deployment
metadata:
  name: hungry
spec:
  replicas: 2
  selector:
    matchLabels:
      app: hungry
  template:
    metadata:
      labels:
        app: hungry
    spec:
      containers:
      - name: worker
        image: busybox:1.36
        resources:
          requests:
            cpu: \"6\"
            memory: 1Gi
";

const NODE_SELECTOR: &str = "\
# Document 1 labels node-2 disktype=ssd
# (apply merges it into the live Node).
# The pod selects that label: node-2 is
# the only node that fits.
apiVersion: v1
kind: Node
metadata:
  name: node-2
  labels:
    disktype: ssd
---
apiVersion: v1
kind: Pod
metadata:
  name: cache
  labels:
    app: cache
spec:
  nodeSelector:
    disktype: ssd
  containers:
  - name: redis
    image: redis:7.4
    resources:
      requests:
        cpu: 500m
        memory: 256Mi
";

const TAINTS: &str = "\
# A new node gpu-1, tainted
# dedicated=gpu:NoSchedule. Both
# Deployments select it by label; only
# 'tolerant' lands there. 'plain' stays
# Pending (untolerated taint).
apiVersion: v1
kind: Node
metadata:
  name: gpu-1
  labels:
    accelerator: gpu
spec:
  taints:
  - key: dedicated
    value: gpu
    effect: NoSchedule
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: plain
spec:
  replicas: 2
  selector:
    matchLabels:
      app: plain
  template:
    metadata:
      labels:
        app: plain
    spec:
      nodeSelector:
        accelerator: gpu
      containers:
      - name: job
        image: busybox:1.36
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: tolerant
spec:
  replicas: 2
  selector:
    matchLabels:
      app: tolerant
  template:
    metadata:
      labels:
        app: tolerant
    spec:
      nodeSelector:
        accelerator: gpu
      tolerations:
      - key: dedicated
        operator: Equal
        value: gpu
        effect: NoSchedule
      containers:
      - name: trainer
        image: pytorch/pytorch:2.5.1
";

const SCALE: &str = "\
# web scaled to 10: the ReplicaSet
# controller creates 7 pods (slow-start
# batches); the scheduler spreads them.
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    app: web
spec:
  replicas: 10
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
        resources:
          requests:
            cpu: 250m
            memory: 128Mi
";

const TYPO: &str = "\
# A typo: 'contianers' is no PodSpec
# field. Strict field validation refuses
# the whole apply and names the line.
apiVersion: apps/v1
kind: Deployment
metadata:
  name: typo
spec:
  replicas: 1
  selector:
    matchLabels:
      app: typo
  template:
    metadata:
      labels:
        app: typo
    spec:
      contianers:
      - name: app
        image: nginx:1.27
";

pub const EXAMPLES: [Example; 7] = [
    Example { id: "web", title: "web: 3-replica Deployment", yaml: WEB },
    Example { id: "scale", title: "web scaled to 10", yaml: SCALE },
    Example { id: "too-big", title: "cannot fit (6 CPU per pod)", yaml: TOO_BIG },
    Example { id: "node-selector", title: "nodeSelector disktype=ssd", yaml: NODE_SELECTOR },
    Example { id: "taints", title: "tainted node + tolerations", yaml: TAINTS },
    Example { id: "typo", title: "typo (error with a line)", yaml: TYPO },
    Example { id: "shop", title: "shop: a real application (config, secret, probes, Service, PDB)", yaml: FILES[1].1 },
];

pub fn find(id: &str) -> Option<&'static Example> {
    EXAMPLES.iter().find(|e| e.id == id)
}

/// The scenario files of `examples/` (what `kubeloop run` runs), opened by `#scenario=NAME` links. They are not in
/// the page's first download: the page fetches them once it runs, with the lessons (docs/size.md).
pub const SCENARIOS: [&str; 6] = ["node-failure", "self-healing", "unschedulable", "edge-vs-level", "kubectl", "web"];

/// The example scenarios' texts where the build carries them (native builds: the page's tests).
#[cfg(not(target_arch = "wasm32"))]
const CARRIED: [(&str, &str); 6] = [
    ("node-failure", include_str!("../examples/node-failure.yaml")),
    ("self-healing", include_str!("../examples/self-healing.yaml")),
    ("unschedulable", include_str!("../examples/unschedulable.yaml")),
    ("edge-vs-level", include_str!("../examples/edge-vs-level.yaml")),
    ("kubectl", include_str!("../examples/kubectl.yaml")),
    ("web", include_str!("../examples/web.yaml")),
];
#[cfg(target_arch = "wasm32")]
const CARRIED: [(&str, &str); 0] = [];

thread_local! {
    /// The example scenarios fetched so far (at most one text each).
    static FETCHED: std::cell::RefCell<Vec<(&'static str, std::rc::Rc<str>)>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Where the page fetches the example scenario `name` from (relative to the page).
pub fn scenario_file(name: &str) -> String {
    format!("examples/{name}.yaml")
}

/// The example scenario called `name`: `None` when there is none or its file has not arrived ([`scenario_known`]).
pub fn scenario(name: &str) -> Option<std::rc::Rc<str>> {
    if let Some((_, text)) = CARRIED.iter().find(|(n, _)| *n == name) {
        return Some(std::rc::Rc::from(*text));
    }
    FETCHED.with(|f| f.borrow().iter().find(|(n, _)| *n == name).map(|(_, t)| t.clone()))
}

/// Whether `name` is an example scenario (its file may not have arrived).
pub fn scenario_known(name: &str) -> Option<&'static str> {
    SCENARIOS.iter().copied().find(|n| *n == name)
}

/// An example scenario's file has arrived.
pub fn provide_scenario(name: &'static str, text: &str) {
    FETCHED.with(|f| {
        let mut f = f.borrow_mut();
        if !f.iter().any(|(n, _)| *n == name) {
            f.push((name, std::rc::Rc::from(text)));
        }
    });
}

/// The example scenarios whose files have not arrived.
pub fn missing_scenarios() -> Vec<&'static str> {
    SCENARIOS.iter().copied().filter(|n| scenario(n).is_none()).collect()
}

/// The files of `examples/manifests/` the example scenarios read with `kubectl -f` (paths as they write them).
pub const FILES: [(&str, &str); 2] = [
    ("manifests/api.yaml", include_str!("../examples/manifests/api.yaml")),
    ("manifests/shop.yaml", include_str!("../examples/manifests/shop.yaml")),
];
