use super::*;
use crate::api::{Container, LabelSelector, Pod};

fn deployment() -> Deployment {
    let mut d = Deployment::default();
    d.metadata.name = s("web");
    d.spec.selector = LabelSelector::default();
    d.spec.selector.match_labels.insert(s("app"), s("web"));
    d.spec.template.metadata.labels.insert(s("app"), s("web"));
    std::rc::Rc::make_mut(&mut d.spec.template.spec).containers.push(Container {
        name: s("nginx"),
        image: s("nginx:1.27"),
        ..Default::default()
    });
    d
}

#[test]
fn deployment_defaults_are_upstream() {
    let mut o = Object::Deployment(deployment());
    default_object(&mut o);
    let d = o.as_deployment().cloned().unwrap_or_default();
    assert_eq!(d.spec.replicas, Some(1));
    assert_eq!(&*d.spec.strategy.type_, "RollingUpdate");
    let ru = d.spec.strategy.rolling_update.unwrap_or_default();
    assert_eq!(ru.max_surge, Some(IntOrString::String(s("25%"))));
    assert_eq!(ru.max_unavailable, Some(IntOrString::String(s("25%"))));
    assert_eq!(d.spec.revision_history_limit, Some(10));
    assert_eq!(d.spec.progress_deadline_seconds, Some(600));
    assert_eq!(&*d.spec.template.spec.containers[0].image_pull_policy, "IfNotPresent");
    assert_eq!(d.spec.template.spec.termination_grace_period_seconds, Some(30));
    assert!(d.spec.template.spec.tolerations.is_empty(), "tolerations are added to pods, not templates");
}

#[test]
fn pods_get_default_tolerations_of_300_seconds() {
    let mut p = Pod::default();
    std::rc::Rc::make_mut(&mut p.spec).containers.push(Container {
        name: s("c"),
        image: s("busybox"),
        ..Default::default()
    });
    let mut o = Object::Pod(p);
    default_object(&mut o);
    let p = o.as_pod().cloned().unwrap_or_default();
    assert_eq!(p.spec.tolerations.len(), 2);
    assert!(p.spec.tolerations.iter().all(|t| t.toleration_seconds == Some(300) && &*t.effect == "NoExecute"));
    assert_eq!(&*p.spec.containers[0].image_pull_policy, "Always");
    default_object(&mut o);
    assert_eq!(o.as_pod().map(|p| p.spec.tolerations.len()), Some(2), "defaulting is idempotent");
}

#[test]
fn validation_reports_fields_like_the_api_server() {
    let mut d = deployment();
    d.spec.replicas = Some(-1);
    std::rc::Rc::make_mut(&mut d.spec.template.spec).containers[0].image = s("");
    d.spec.template.metadata.labels.insert(s("app"), s("other"));
    let o = Object::Deployment(d);
    let errs = validate(&o);
    let paths: Vec<&str> = errs.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(paths, ["spec.replicas", "spec.template.metadata.labels", "spec.template.spec.containers[0].image"]);
    assert_eq!(errs[2].segments(), ["spec", "template", "spec", "containers", "0", "image"]);
    let msg = invalid_message(&o, &errs[..1]);
    assert_eq!(
        msg,
        "The Deployment \"web\" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0"
    );
    let invalid = Invalid::new(&o, errs[..2].to_vec());
    assert!(invalid.status_message().starts_with("Deployment.apps \"web\" is invalid: [spec.replicas: Invalid"));
    assert!(invalid.kubectl_message().starts_with(
        "The Deployment \"web\" is invalid: \n* spec.replicas: Invalid value: -1: must be greater than or equal to 0\n* spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"other\"}: `selector` does not match template `labels`"
    ));
    assert!(validate(&Object::Deployment(deployment())).is_empty());
}

#[test]
fn recreate_forbids_rolling_update_parameters() {
    let mut d = deployment();
    d.spec.strategy.type_ = s("Recreate");
    d.spec.strategy.rolling_update = Some(RollingUpdateDeployment::default());
    let errs = validate(&Object::Deployment(d));
    assert_eq!(errs.len(), 1);
    assert!(errs[0].message.contains("Recreate"));
}

#[test]
fn an_invalid_reads_as_the_api_server_and_kubectl_print_it() {
    let cm = Object::ConfigMap(crate::api::ConfigMap {
        metadata: crate::api::ObjectMeta::named("default", "c"),
        ..Default::default()
    });
    let one = FieldError::too_long("[]", 1 << 20);
    let twice = Invalid::new(&cm, vec![one.clone(), one.clone()]);
    // Repeated errors are shown once (ToAggregate), and one error needs no list.
    assert_eq!(twice.status_message(), "ConfigMap \"c\" is invalid: []: Too long: must have at most 1048576 bytes");
    assert_eq!(
        twice.kubectl_message(),
        "The ConfigMap \"c\" is invalid: []: Too long: must have at most 1048576 bytes"
    );
    let two = Invalid::new(&cm, vec![one, FieldError::required("data[a]")]);
    assert_eq!(
        two.status_message(),
        "ConfigMap \"c\" is invalid: [[]: Too long: must have at most 1048576 bytes, data[a]: Required value]"
    );
    assert_eq!(
        two.kubectl_message(),
        "The ConfigMap \"c\" is invalid: \n* []: Too long: must have at most 1048576 bytes\n* data[a]: Required value"
    );
    let mut d = deployment();
    d.metadata.name = s("web");
    let inv = Invalid::new(&Object::Deployment(d), vec![FieldError::required("spec.selector")]);
    assert_eq!(inv.status_message(), "Deployment.apps \"web\" is invalid: spec.selector: Required value");
    assert_eq!(inv.kubectl_message(), "The Deployment \"web\" is invalid: spec.selector: Required value");
}

#[test]
fn a_field_error_is_located_by_its_segments() {
    let e = FieldError::required("data[a.b]");
    assert_eq!(e.segments(), ["data", "a.b"]);
    let e = FieldError::required("metadata.annotations[kubernetes.io/service-account.name]");
    assert_eq!(e.segments(), ["metadata", "annotations", "kubernetes.io/service-account.name"]);
    let e = FieldError::required("metadata.taints[1].key").located_at("spec.taints[1].key");
    assert_eq!(e.segments(), ["spec", "taints", "1", "key"]);
    assert!(FieldError::required("[]").segments().is_empty());
}

#[test]
fn a_pods_negative_grace_period_is_stored_as_one() {
    let mut p = Pod::default();
    std::rc::Rc::make_mut(&mut p.spec).termination_grace_period_seconds = Some(-5);
    let mut o = Object::Pod(p);
    default_object(&mut o);
    assert_eq!(o.as_pod().and_then(|p| p.spec.termination_grace_period_seconds), Some(1));
    // A template keeps what was written (pods made from it get 1).
    let mut d = deployment();
    std::rc::Rc::make_mut(&mut d.spec.template.spec).termination_grace_period_seconds = Some(-5);
    let mut o = Object::Deployment(d);
    default_object(&mut o);
    assert_eq!(o.as_deployment().and_then(|d| d.spec.template.spec.termination_grace_period_seconds), Some(-5));
}
