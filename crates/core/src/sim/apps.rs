//! The simulated applications' behaviour (kubeloop's own input, see [`crate::behaviour`]): set for an image or
//! for one pod's containers, and crashes on demand. Each change lands at the simulated time it is made.

use super::*;
use crate::behaviour::BehaviourPatch;

impl Sim {
    /// Changes what every container of `image` does (those with a setting of their own excepted).
    pub fn set_image_behaviour(&mut self, image: &str, patch: &BehaviourPatch) -> Result<(), String> {
        self.behaviours.patch_image(image, patch)?;
        let now = self.now;
        for n in 0..self.kubelets.len() {
            let Sim { kubelets, behaviours, informers, .. } = self;
            let k = &mut kubelets[n];
            if !k.alive {
                continue;
            }
            let timers = k.image_behaviour_changed(&informers[k.informer].cache, image, behaviours, now);
            self.schedule_pod_timers(n, timers);
        }
        self.flush_wakeups();
        Ok(())
    }

    /// Changes what a pod's containers do (one container, or all when `container` is `None`).
    pub fn set_pod_behaviour(
        &mut self,
        key: &ObjKey,
        container: Option<&str>,
        patch: &BehaviourPatch,
    ) -> Result<(), String> {
        self.on_pod_kubelet(key, |k, _, pods, behaviours, now| {
            k.patch_behaviour(pods, key, container, patch, behaviours, now)
        })
    }

    /// Crashes a pod's running containers now (one, or all when `container` is `None`).
    pub fn crash_pod(&mut self, key: &ObjKey, container: Option<&str>) -> Result<(), String> {
        self.on_pod_kubelet(key, |k, api, pods, behaviours, now| k.crash(api, pods, key, container, behaviours, now))
    }

    /// Runs `f` on the kubelet of the node a pod is bound to, and schedules the timers it returns.
    fn on_pod_kubelet(
        &mut self,
        key: &ObjKey,
        f: impl FnOnce(
            &mut Kubelet,
            &mut Api,
            &crate::informer::Cache,
            &crate::behaviour::Behaviours,
            Millis,
        ) -> Result<Vec<PodTimer>, String>,
    ) -> Result<(), String> {
        let Some(obj) = self.store.peek(Kind::Pod, key).cloned() else {
            return Err(format!("pods \"{}\" not found", key.name));
        };
        let node = obj.as_pod().map(|p| p.spec.node_name.clone()).unwrap_or_default();
        let Some(&n) = self.kubelet_by_name.get(&*node) else {
            return Err(format!("pod \"{}\" is not bound to a node yet", key.name));
        };
        let now = self.now;
        let Sim { kubelets, kubelet_rngs, store, behaviours, informers, .. } = self;
        let k = &mut kubelets[n];
        if !k.alive {
            return Err(format!("the kubelet of node \"{node}\" is not running"));
        }
        let mut api = Api::new(store, k.client, now, &mut kubelet_rngs[n]);
        let timers = f(k, &mut api, &informers[k.informer].cache, behaviours, now)?;
        self.schedule_pod_timers(n, timers);
        self.flush_wakeups();
        Ok(())
    }

    /// Schedules pod timers a kubelet asked for.
    pub(crate) fn schedule_pod_timers(&mut self, node: usize, timers: Vec<PodTimer>) {
        self.schedule_kubelet_timers(node, KubeletTimer::pods(timers));
    }

    /// Schedules timers a kubelet asked for (delays from now), in its present life.
    pub(crate) fn schedule_kubelet_timers(
        &mut self,
        node: usize,
        timers: impl IntoIterator<Item = (Millis, KubeletTimer)>,
    ) {
        let epoch = self.kubelets[node].epoch;
        let now = self.now;
        for (delay, timer) in timers {
            self.schedule(now + delay, Ev::Kubelet { node, epoch, timer });
        }
    }
}

impl Sim {
    /// The behaviour each container of a pod follows now, by container name, while a running kubelet runs the
    /// pod (for the page's toggles); `None` otherwise.
    pub fn pod_behaviour(&self, key: &ObjKey) -> Option<Vec<(Str, crate::behaviour::Behaviour)>> {
        let pod = self.store.peek(Kind::Pod, key)?.as_pod()?;
        let k = self.kubelet(&pod.spec.node_name).filter(|k| k.alive)?;
        let rt = k.pods.get(key).filter(|r| r.uid == pod.metadata.uid && r.stage == crate::kubelet::Stage::Running)?;
        Some(
            rt.containers
                .iter()
                .map(|c| {
                    let b = c.behaviour.as_deref().cloned().unwrap_or_else(|| self.behaviours.of_image(&c.image));
                    (c.name.clone(), b)
                })
                .collect(),
        )
    }

    /// How the kubelet is stopping a pod being deleted: each container it stops, with its plan (preStop until,
    /// SIGTERM, SIGKILL due); `None` when no live kubelet is stopping it. Read uncounted (the page's countdown).
    pub fn pod_stopping(&self, key: &ObjKey) -> Option<Vec<(Str, crate::kubelet::StopPlan)>> {
        let pod = self.store.peek(Kind::Pod, key)?.as_pod()?;
        let k = self.kubelet(&pod.spec.node_name).filter(|k| k.alive)?;
        let rt = k.pods.get(key).filter(|r| r.uid == pod.metadata.uid && r.stage == crate::kubelet::Stage::Stopping)?;
        Some(rt.containers.iter().filter_map(|c| Some((c.name.clone(), *c.stop.as_deref()?))).collect())
    }
}
