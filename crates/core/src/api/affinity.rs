//! `v1.Affinity`'s required node affinity: the node selector terms the scheduler's NodeAffinity filter holds a pod
//! to (with its `nodeSelector`). Preferred terms (NodeAffinity's score), pod affinity and anti-affinity are accepted
//! by the manifest reader with a warning and not simulated (the schema tables know them). The matching is
//! `k8s.io/component-helpers/scheduling/corev1/nodeaffinity`'s.

use serde::Serialize;

#[cfg(any(test, feature = "oracle"))]
use serde::Deserialize;

use super::{Labels, Str};

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct Affinity {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_affinity: Option<NodeAffinity>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct NodeAffinity {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required_during_scheduling_ignored_during_execution: Option<NodeSelector>,
}

/// Terms ORed: a node matches when one of them matches.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct NodeSelector {
    #[serde(default)]
    pub node_selector_terms: Vec<NodeSelectorTerm>,
}

/// Requirements ANDed; a term with none matches no node.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct NodeSelectorTerm {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub match_expressions: Vec<NodeSelectorRequirement>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub match_fields: Vec<NodeSelectorRequirement>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
pub struct NodeSelectorRequirement {
    #[serde(default)]
    pub key: Str,
    #[serde(default)]
    pub operator: Str,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<Str>,
}

/// The node selector operators and the field `matchFields` may name (`metadata.name`).
pub const NODE_SELECTOR_OPERATORS: [&str; 6] = ["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"];
pub const NODE_FIELD_SELECTOR_KEY: &str = "metadata.name";

impl NodeSelectorRequirement {
    /// The requirement on a value that is there (`Some`) or not: In, NotIn, Exists, DoesNotExist, and Gt / Lt
    /// on one integer value.
    fn matches(&self, value: Option<&str>) -> bool {
        let int = |s: &str| s.parse::<i64>().ok();
        match (&*self.operator, value) {
            ("In", Some(v)) => self.values.iter().any(|x| &**x == v),
            ("In", None) => false,
            ("NotIn", v) => v.is_none_or(|v| !self.values.iter().any(|x| &**x == v)),
            ("Exists", v) => v.is_some(),
            ("DoesNotExist", v) => v.is_none(),
            ("Gt" | "Lt", Some(v)) => match (int(v), self.values.first().and_then(|x| int(x))) {
                (Some(have), Some(bound)) if self.values.len() == 1 => {
                    if &*self.operator == "Gt" {
                        have > bound
                    } else {
                        have < bound
                    }
                }
                _ => false,
            },
            _ => false,
        }
    }
}

impl NodeSelectorTerm {
    /// Every expression on the node's labels and every field requirement on its name hold (an empty term: no).
    pub fn matches(&self, labels: &Labels, name: &str) -> bool {
        if self.match_expressions.is_empty() && self.match_fields.is_empty() {
            return false;
        }
        self.match_expressions.iter().all(|r| r.matches(labels.get(&r.key).map(|v| &**v)))
            && self.match_fields.iter().all(|r| &*r.key == NODE_FIELD_SELECTOR_KEY && r.matches(Some(name)))
    }
}

impl Affinity {
    /// The required node affinity holds for a node of these labels and name (`GetRequiredNodeAffinity`'s
    /// `Match`, without the nodeSelector, which the caller checks).
    pub fn required_matches(&self, labels: &Labels, name: &str) -> bool {
        let required =
            self.node_affinity.as_ref().and_then(|n| n.required_during_scheduling_ignored_during_execution.as_ref());
        required.is_none_or(|sel| sel.node_selector_terms.iter().any(|t| t.matches(labels, name)))
    }

    /// The affinity a DaemonSet's pod gets for its node (`ReplaceDaemonSetPodNodeNameNodeAffinity`): the required
    /// terms replaced by one that matches the node's name only.
    pub fn for_node(affinity: Option<&Affinity>, node: &str) -> Affinity {
        let term = NodeSelectorTerm {
            match_expressions: Vec::new(),
            match_fields: vec![NodeSelectorRequirement {
                key: Str::from(NODE_FIELD_SELECTOR_KEY),
                operator: Str::from("In"),
                values: vec![Str::from(node)],
            }],
        };
        let mut a = affinity.cloned().unwrap_or_default();
        let na = a.node_affinity.get_or_insert_with(NodeAffinity::default);
        na.required_during_scheduling_ignored_during_execution = Some(NodeSelector { node_selector_terms: vec![term] });
        a
    }
}
