//! The manifests of the examples menu, and the files of `examples/` the page fetches once it runs (the example
//! scenarios, the editor's examples, the manifests they read). Choosing an example fills the editor; nothing is
//! applied until Apply.

use std::rc::Rc;

/// One entry of the examples menu.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Example {
    pub id: &'static str,
    pub title: &'static str,
    pub yaml: Yaml,
}

/// Where an example's manifest is: in the page's first download (the one it opens with), or a file of the site.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Yaml {
    Text(&'static str),
    File(&'static str),
}

/// The Deployment applied when the page opens (3 nginx replicas): `examples/manifests/web.yaml`, in the first
/// download. The engine's manifest tests read the same file.
pub const WEB: &str = include_str!("../examples/manifests/web.yaml");

pub const EXAMPLES: [Example; 7] = [
    Example { id: "web", title: "web: 3-replica Deployment", yaml: Yaml::Text(WEB) },
    Example { id: "scale", title: "web scaled to 10", yaml: Yaml::File("editor/scale.yaml") },
    Example { id: "too-big", title: "cannot fit (6 CPU per pod)", yaml: Yaml::File("editor/too-big.yaml") },
    Example { id: "node-selector", title: "nodeSelector disktype=ssd", yaml: Yaml::File("editor/node-selector.yaml") },
    Example { id: "taints", title: "tainted node + tolerations", yaml: Yaml::File("editor/taints.yaml") },
    Example { id: "typo", title: "typo (error with a line)", yaml: Yaml::File("editor/typo.yaml") },
    Example {
        id: "shop",
        title: "shop: a real application (config, secret, probes, Service, PDB)",
        yaml: Yaml::File("manifests/shop.yaml"),
    },
];

pub fn find(id: &str) -> Option<&'static Example> {
    EXAMPLES.iter().find(|e| e.id == id)
}

impl Example {
    /// The example's manifest: `None` while its file has not arrived.
    pub fn text(&self) -> Option<Rc<str>> {
        match self.yaml {
            Yaml::Text(t) => Some(Rc::from(t)),
            Yaml::File(path) => file(path),
        }
    }
}

/// The scenario files of `examples/` (what `kubeloop run` runs), opened by `#scenario=NAME` links.
pub const SCENARIOS: [&str; 6] = ["node-failure", "self-healing", "unschedulable", "edge-vs-level", "kubectl", "web"];

/// The list of site files, written once: [`SITE_FILES`] and, in native builds, [`CARRIED`] with their texts.
macro_rules! site_files {
    ($($path:literal,)*) => {
        /// The files of `examples/` the page fetches once it runs, not in its first download (docs/size.md): the
        /// example scenarios, the editor's examples but the first, and the manifests the scenarios read with
        /// `kubectl -f`. Paths are relative to `examples/`, as the scenarios name them.
        pub const SITE_FILES: &[&str] = &[$($path),*];

        /// The same files' texts where the build carries them (native builds: the page's tests).
        #[cfg(not(target_arch = "wasm32"))]
        const CARRIED: &[(&str, &str)] = &[$(($path, include_str!(concat!("../examples/", $path)))),*];
        #[cfg(target_arch = "wasm32")]
        const CARRIED: &[(&str, &str)] = &[];
    };
}

site_files! {
    "node-failure.yaml",
    "self-healing.yaml",
    "unschedulable.yaml",
    "edge-vs-level.yaml",
    "kubectl.yaml",
    "web.yaml",
    "editor/scale.yaml",
    "editor/too-big.yaml",
    "editor/node-selector.yaml",
    "editor/taints.yaml",
    "editor/typo.yaml",
    "manifests/api.yaml",
    "manifests/shop.yaml",
}

thread_local! {
    /// The files of [`SITE_FILES`] fetched so far (at most one text each).
    static FETCHED: std::cell::RefCell<Vec<(&'static str, Rc<str>)>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Where the page fetches file `path` of [`SITE_FILES`] from (relative to the page).
pub fn site_path(path: &str) -> String {
    format!("examples/{path}")
}

/// File `path` of [`SITE_FILES`]: `None` when there is none or it has not arrived.
pub fn file(path: &str) -> Option<Rc<str>> {
    if let Some((_, text)) = CARRIED.iter().find(|(p, _)| *p == path) {
        return Some(Rc::from(*text));
    }
    FETCHED.with(|f| f.borrow().iter().find(|(p, _)| *p == path).map(|(_, t)| t.clone()))
}

/// The example scenario called `name`: `None` when there is none or its file has not arrived ([`scenario_known`]).
pub fn scenario(name: &str) -> Option<Rc<str>> {
    file(&format!("{name}.yaml"))
}

/// Whether `name` is an example scenario (its file may not have arrived).
pub fn scenario_known(name: &str) -> Option<&'static str> {
    SCENARIOS.iter().copied().find(|n| *n == name)
}

/// A file has arrived from the site (`examples/PATH`); anything else is not kept. Whether it was one of ours.
pub fn provide(site_path: &str, text: &str) -> bool {
    let Some(path) = SITE_FILES.iter().copied().find(|p| self::site_path(p) == site_path) else { return false };
    FETCHED.with(|f| {
        let mut f = f.borrow_mut();
        if !f.iter().any(|(p, _)| *p == path) {
            f.push((path, Rc::from(text)));
        }
    });
    true
}

/// The site paths of the files of [`SITE_FILES`] that have not arrived.
pub fn missing() -> Vec<String> {
    SITE_FILES.iter().filter(|p| file(p).is_none()).map(|p| site_path(p)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The native build carries every file the page fetches, under the same paths, so the page's tests read what
    /// the site serves; every example of the menu but the first is one of them.
    #[test]
    fn the_carried_files_are_the_site_files_and_every_fetched_example_is_one() {
        let carried: Vec<&str> = CARRIED.iter().map(|(p, _)| *p).collect();
        assert_eq!(carried, SITE_FILES);
        for ex in EXAMPLES {
            match ex.yaml {
                Yaml::Text(_) => assert_eq!(ex.id, "web"),
                Yaml::File(path) => assert!(SITE_FILES.contains(&path), "{}", ex.id),
            }
        }
        for name in SCENARIOS {
            assert!(scenario(name).is_some(), "{name}");
        }
        assert!(!provide("examples/elsewhere.yaml", "x"), "only the site's files are kept");
        assert_eq!(missing(), Vec::<String>::new());
    }
}
