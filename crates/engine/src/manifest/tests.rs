use super::*;

const WEB: &str = "\
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
        ports:
        - containerPort: 80
";

#[test]
fn parses_a_deployment_with_real_field_names() {
    let (ms, warnings) = parse(WEB).expect("valid");
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(ms.len(), 1);
    let d = ms[0].object.as_deployment().expect("deployment");
    assert_eq!(d.spec.replicas, Some(3));
    assert_eq!(&*d.spec.template.spec.containers[0].image, "nginx:1.27");
    assert_eq!(ms[0].json["kind"], "Deployment");
}

#[test]
fn documents_keep_their_numbers_and_lines() {
    let text = format!("# leading comment\n---\n{WEB}---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: team\n");
    let (ms, _) = parse(&text).expect("valid");
    assert_eq!(ms.len(), 2);
    assert_eq!((ms[0].document, ms[0].first_line), (1, 3));
    assert_eq!(ms[1].document, 2);
    assert_eq!(ms[1].object.kind(), Kind::Namespace);
    assert_eq!(ms[0].line_of(&["spec", "replicas"]), 10);
}

#[test]
fn syntax_errors_point_at_line_and_column() {
    let text = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n spec: [\n";
    let e = parse(text).expect_err("broken");
    assert_eq!(e.document, 1);
    assert!(e.line >= 4 && e.line <= 6, "{e}");
    assert!(e.to_string().contains(&format!("line {}", e.line)));
}

#[test]
fn errors_in_later_documents_count_lines_from_the_top() {
    let text =
        format!("{WEB}---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\nspec:\n  replicas: many\n");
    let e = parse(&text).expect_err("replicas must be an integer");
    assert_eq!(e.document, 2);
    assert_eq!(e.line, 28, "{e}");
    assert!(e.message.contains("invalid type"), "{e}");
}

#[test]
fn unknown_kind_and_api_version_are_errors_on_the_kind_line() {
    let e = parse("apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n").expect_err("not simulated");
    assert_eq!(e.line, 2);
    assert!(e.message.contains("no matches for kind \"Service\" in version \"v1\""), "{e}");
    let e = parse("apiVersion: extensions/v1beta1\nkind: Deployment\nmetadata:\n  name: web\n").expect_err("old");
    assert!(e.message.contains("apps/v1"), "{e}");
    let e = parse("metadata:\n  name: web\n").expect_err("no type");
    assert!(e.message.contains("apiVersion not set, kind not set"), "{e}");
}

#[test]
fn real_but_unsimulated_fields_warn_with_their_path_and_line() {
    let text = WEB.replace(
        "        ports:\n",
        "        livenessProbe:\n          httpGet: {path: /, port: 80}\n        ports:\n",
    );
    let (_, warnings) = parse(&text).expect("accepted");
    assert_eq!(warnings.len(), 1);
    assert_eq!(warnings[0].path, "spec.template.spec.containers[0].livenessProbe");
    assert_eq!(warnings[0].line, 20);
    assert!(warnings[0].to_string().contains("not simulated"));
}

#[test]
fn unknown_fields_are_strict_decoding_errors() {
    let text = WEB.replace("  replicas: 3\n", "  replicass: 3\n");
    let e = parse(&text).expect_err("typo");
    assert_eq!(e.line, 8);
    assert_eq!(e.message, "strict decoding error: unknown field \"spec.replicass\"");
}

#[test]
fn validation_errors_name_the_field_and_its_line() {
    let text = WEB.replace("        image: nginx:1.27\n", "        image: \"\"\n");
    let (ms, _) = parse(&text).expect("parses");
    let e = validate(&ms[0]).expect_err("image required");
    assert_eq!(e.line, 19, "{e}");
    assert!(e.message.contains("spec.template.spec.containers[0].image: Required value"), "{e}");
    let text = WEB.replace("        app: web\n    spec:", "        app: api\n    spec:");
    let (ms, _) = parse(&text).expect("parses");
    let e = validate(&ms[0]).expect_err("selector mismatch");
    assert!(e.message.contains("`selector` does not match template `labels`"), "{e}");
}

#[test]
fn a_nameless_object_is_an_error() {
    let e = parse("apiVersion: v1\nkind: Namespace\nmetadata:\n  labels: {a: b}\n").expect_err("no name");
    assert!(e.message.contains("name"), "{e}");
}

#[test]
fn nothing_in_garbage_panics() {
    for text in
        ["", "---", "- a\n- b\n", "42", ":", "apiVersion: [", "kind: Pod\napiVersion: v1\nmetadata: 3\n", "\t\u{0}"]
    {
        let _ = parse(text);
    }
}
