//! Status conditions (`type`, `status`, `reason`, `message`, `lastTransitionTime`) and the one way they are set.
//! Upstream sets them in two ways, and [`set_condition`] does both:
//! - [`Placement::InPlace`], podutil's `UpdatePodCondition`: the condition of that type is updated where it is;
//! - [`Placement::Latest`], `SetDeploymentCondition` and the ReplicaSet controller's `SetCondition`: nothing
//!   happens when the condition of that type already has the same status and reason (its message is not
//!   updated); otherwise the old one is filtered out and the new one appended.
//!
//! Either way `lastTransitionTime` moves only when the status changes.

use super::{DeploymentCondition, PodCondition, ReplicaSetCondition, Str, Time};

/// A status condition of an API object.
pub trait Condition {
    fn type_(&self) -> &Str;
    fn status(&self) -> &Str;
    fn reason(&self) -> &Str;
    fn transition(&self) -> Option<Time>;
    fn set_transition(&mut self, t: Option<Time>);
}

/// Where a set condition goes (see the module's documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    InPlace,
    Latest,
}

/// Sets `new` among `conds` as upstream sets a condition of its kind.
pub fn set_condition<C: Condition>(conds: &mut Vec<C>, mut new: C, placement: Placement) {
    let Some(i) = conds.iter().position(|c| c.type_() == new.type_()) else {
        conds.push(new);
        return;
    };
    let old = &conds[i];
    if placement == Placement::Latest && old.status() == new.status() && old.reason() == new.reason() {
        return;
    }
    if old.status() == new.status() {
        new.set_transition(old.transition());
    }
    match placement {
        Placement::InPlace => conds[i] = new,
        Placement::Latest => {
            conds.remove(i);
            conds.push(new);
        }
    }
}

macro_rules! condition {
    ($t:ty) => {
        impl Condition for $t {
            fn type_(&self) -> &Str {
                &self.type_
            }
            fn status(&self) -> &Str {
                &self.status
            }
            fn reason(&self) -> &Str {
                &self.reason
            }
            fn transition(&self) -> Option<Time> {
                self.last_transition_time
            }
            fn set_transition(&mut self, t: Option<Time>) {
                self.last_transition_time = t;
            }
        }
    };
}

condition!(PodCondition);
condition!(ReplicaSetCondition);
condition!(DeploymentCondition);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::s;

    fn pod(type_: &str, status: &str, reason: &str, message: &str, t: u64) -> PodCondition {
        PodCondition {
            type_: s(type_),
            status: s(status),
            last_transition_time: Some(Time(t)),
            reason: s(reason),
            message: s(message),
        }
    }

    #[test]
    fn in_place_updates_where_it_is_and_keeps_the_transition_time_of_an_unchanged_status() {
        let mut conds = vec![pod("Ready", "False", "", "", 1), pod("PodScheduled", "True", "", "", 1)];
        set_condition(&mut conds, pod("Ready", "False", "R", "m", 5), Placement::InPlace);
        assert_eq!(conds[0], pod("Ready", "False", "R", "m", 1));
        set_condition(&mut conds, pod("Ready", "True", "", "", 7), Placement::InPlace);
        assert_eq!(conds[0], pod("Ready", "True", "", "", 7));
        set_condition(&mut conds, pod("Initialized", "True", "", "", 8), Placement::InPlace);
        assert_eq!(conds.len(), 3);
    }

    #[test]
    fn latest_ignores_the_same_status_and_reason_and_otherwise_moves_to_the_end() {
        let mut conds =
            vec![pod("Available", "True", "MinimumReplicasAvailable", "a", 1), pod("Progressing", "True", "X", "", 1)];
        set_condition(
            &mut conds,
            pod("Available", "True", "MinimumReplicasAvailable", "new message", 5),
            Placement::Latest,
        );
        assert_eq!(conds[0].message.as_ref(), "a", "the same status and reason: nothing changes");
        set_condition(&mut conds, pod("Available", "True", "Other", "b", 6), Placement::Latest);
        assert_eq!(conds[1], pod("Available", "True", "Other", "b", 1), "moved to the end, transition time kept");
        set_condition(&mut conds, pod("Available", "False", "Other", "c", 9), Placement::Latest);
        assert_eq!(conds[1], pod("Available", "False", "Other", "c", 9));
    }
}
