//! `kubectl create -f`, `create deployment`, `create namespace`: one POST per object. Unlike `apply`, objects
//! are created one by one and an error (AlreadyExists) does not stop the others.

use std::rc::Rc;

use super::args::{value, Args, Flag};
use super::delete::server_error_line;
use super::dry_run::{self, DryRun};
use super::{Command, Input, Output};
use crate::api::{s, Container, ContainerPort, Deployment, Kind, LabelSelector, Namespace, Object, PodSpec};
use crate::manifest::{self, Entry};
use crate::sim::{Sim, MAX_NODES, MAX_PODS};

pub const COMMAND: Command = Command {
    name: "create",
    summary: "Create a resource from a file or from stdin",
    usage: "kubectl create -f FILENAME | kubectl create deployment NAME --image=image [--replicas=N] [--port=N] | kubectl create job NAME --image=image [-- COMMAND [args...]] | kubectl create job NAME --from=cronjob/NAME | kubectl create cronjob NAME --image=image --schedule='0/5 * * * ?' [--restart=OnFailure|Never] [-- COMMAND [args...]] | kubectl create namespace NAME",
    flags: FLAGS,
    run,
};

const FLAGS: &[Flag] = &[
    value("filename", Some('f')),
    value("image", None),
    value("replicas", Some('r')),
    value("port", None),
    value("schedule", None),
    value("restart", None),
    value("from", None),
    dry_run::FLAG,
];

fn run(sim: &mut Sim, args: &Args, input: &Input) -> Result<Output, Output> {
    let dry = DryRun::of(args)?;
    dry_run::warned(args, create(sim, args, input, dry))
}

fn create(sim: &mut Sim, args: &Args, input: &Input, dry: DryRun) -> Result<Output, Output> {
    match args.positional.first().map(String::as_str) {
        None => from_files(sim, args, input, dry),
        Some("deployment" | "deploy") => deployment(sim, args, dry),
        Some("namespace" | "ns") => namespace(sim, args, dry),
        Some("job") => job(sim, args, dry),
        Some("cronjob" | "cj") => cronjob(sim, args, dry),
        Some(other) => {
            if args.has("filename") {
                return Err(Output::error(format!(
                    "Unexpected args: [{}]\nSee 'kubectl create -h' for help and examples",
                    args.positional.join(" ")
                )));
            }
            Err(Output::error(format!(
                "unknown command \"{other}\" for \"kubectl create\" (kubeloop creates deployments, jobs, cronjobs and namespaces; apply a manifest for the rest)"
            )))
        }
    }
}

/// A refused POST as `create -f` reports it: a 422 as kubectl's `The Pod "x" is invalid: ...`, any other error's
/// message (given its reason and source below).
fn post_error(e: crate::store::ApiError) -> String {
    match e {
        crate::store::ApiError::Invalid(_) => server_error_line(&e),
        e => format!("{e}"),
    }
}

/// `create -f`, as kubectl's `RunCreate` visits what it reads: each object created as it is read, on its own (one
/// the server refuses fails alone); the errors after the objects created: the server's in order, then those of
/// reading (kubectl's `ContinueOnErrorVisitor` gathers the stream's last), exit status 1.
fn from_files(sim: &mut Sim, args: &Args, input: &Input, dry: DryRun) -> Result<Output, Output> {
    let read = super::apply::read_files(args, input)?;
    let mut out = Output::default();
    let (mut errors, mut unread, mut kinds) = (Vec::new(), Vec::new(), manifest::Warnings::default());
    let mut created = 0;
    for entry in read.objects {
        let m = match entry {
            Entry::Unbuilt(e) => {
                unread.push(e.to_string());
                continue;
            }
            entry if dry.sends() => entry.into_result(),
            // A client dry run sends nothing: what the server would refuse is not known.
            entry => entry.into_read(),
        };
        let made = m.map_err(|e| e.to_string()).and_then(|m| {
            for w in &m.warnings {
                out.stderr.push_str(&format!("{w}\n"));
            }
            kinds.saw(&m);
            create_one(sim, &m, dry)
        });
        match made {
            Ok(line) => {
                created += 1;
                out.stdout.push_str(&line);
            }
            Err(e) => errors.push(e),
        }
    }
    for w in kinds.finish() {
        out.stderr.push_str(&format!("{w}\n"));
    }
    if created == 0 && errors.is_empty() && unread.is_empty() {
        return Err(Output::error("no objects passed to create"));
    }
    out.fail_with(errors.into_iter().chain(unread));
    Ok(out)
}

/// One object created (or a dry run's): the line kubectl prints, or the error it reports.
fn create_one(sim: &mut Sim, m: &manifest::Manifest, dry: DryRun) -> Result<String, String> {
    let obj = m.object.clone();
    let kind = obj.kind();
    // Without a name (a generateName), the server gives it; until then kubectl prints `<unknown>`
    // (printers.NamePrinter).
    let name = if obj.meta().name.is_empty() { s("<unknown>") } else { obj.meta().name.clone() };
    if !dry.sends() {
        // kubectl sends nothing: nothing server-side is checked.
        return Ok(format!("{}/{name} created (dry run)\n", kind.resource_ref()));
    }
    manifest::validate(m).map_err(|e| e.to_string())?;
    if super::apply::declared_pods(sim) + super::apply::replicas_of(sim, &obj) > MAX_PODS as i64 {
        return Err(format!(
            "refused: creating {}/{name} would make the cluster declare more than {MAX_PODS} pods (kubeloop's envelope)",
            kind.resource_ref()
        ));
    }
    let res = if kind == Kind::Node {
        // A Node comes with a simulated kubelet; an existing name is the API's AlreadyExists.
        if sim.store().peek(Kind::Node, &obj.key()).is_some() {
            Err(format!("nodes {name:?} already exists"))
        } else if sim.kubelets().len() >= MAX_NODES {
            Err(format!("refused: kubeloop simulates at most {MAX_NODES} nodes"))
        } else if dry == DryRun::Server {
            dry.send(sim, |api| api.create(obj)).map(|o| o.meta().name.clone()).map_err(post_error)
        } else {
            super::apply::create_node(sim, obj).map(|_| name.clone())
        }
    } else {
        dry.send(sim, |api| api.create(obj)).map(|o| o.meta().name.clone()).map_err(post_error)
    };
    match res {
        Ok(made) => Ok(format!("{}/{made} created{}\n", kind.resource_ref(), dry.suffix())),
        Err(e) if e.starts_with("The ") || e.starts_with("refused") => Err(e),
        Err(e) => {
            let reason = if e.ends_with("already exists") {
                "AlreadyExists"
            } else if e.ends_with("not found") {
                "NotFound"
            } else {
                "BadRequest"
            };
            Err(format!("Error from server ({reason}): error when creating {:?}: {e}", m.source))
        }
    }
}

/// One NAME after the subcommand, as `kubectl create SUB NAME` requires.
fn one_name(args: &Args, sub: &str) -> Result<String, Output> {
    let names = &args.positional[1..];
    if names.len() != 1 {
        return Err(Output::error(format!(
            "exactly one NAME is required, got {}\nSee 'kubectl create {sub} -h' for help and examples",
            names.len()
        )));
    }
    Ok(names[0].clone())
}

/// The container name kubectl derives from an image: the last path part without tag or digest, `_` and `.`
/// turned into `-` (kubectl then adds a random suffix; kubeloop a seeded one).
fn container_name(sim: &mut Sim, image: &str) -> String {
    let mut name = image.rsplit('/').next().unwrap_or(image).to_string();
    if let Some((n, _)) = name.split_once(':') {
        name = n.to_string();
    }
    if let Some((n, _)) = name.split_once('@') {
        name = n.to_string();
    }
    if name.contains(['_', '.']) {
        name = name.replace(['_', '.'], "-");
        name = format!("{name}-{}", sim.user_name_suffix(5));
    }
    name
}

fn deployment(sim: &mut Sim, args: &Args, dry: DryRun) -> Result<Output, Output> {
    let name = one_name(args, "deployment")?;
    let images = args.values("image");
    if images.is_empty() {
        return Err(Output::error("required flag(s) \"image\" not set"));
    }
    let replicas = match args.int("replicas") {
        Ok(r) => r.unwrap_or(1),
        Err(e) => return Err(Output::error(e)),
    };
    // kubectl's --port defaults to -1, "no port"; any negative value means the same. Inside, no port is `None`.
    let port = args.int("port").map_err(Output::error)?;
    if replicas > i32::MAX as i64 || replicas < i32::MIN as i64 {
        return Err(Output::error(format!("invalid argument \"{replicas}\" for \"-r, --replicas\" flag: strconv.ParseInt: parsing \"{replicas}\": value out of range")));
    }
    if let Some(port) = port.filter(|p| i32::try_from(*p).is_err()) {
        return Err(Output::error(format!(
            "invalid argument \"{port}\" for \"--port\" flag: strconv.ParseInt: parsing \"{port}\": value out of range"
        )));
    }
    let ns = super::namespace(args);
    let mut d = Deployment::default();
    d.metadata.name = s(&name);
    d.metadata.namespace = s(&ns);
    d.metadata.labels.insert(s("app"), s(&name));
    d.spec.replicas = Some(replicas as i32);
    d.spec.selector = LabelSelector::from_labels(d.metadata.labels.clone());
    d.spec.template.metadata.labels = d.metadata.labels.clone();
    let mut spec = PodSpec::default();
    for image in images {
        let cname = container_name(sim, image);
        spec.containers.push(Container { name: s(&cname), image: s(image), ..Default::default() });
    }
    if let Some(port) = port.and_then(|p| i32::try_from(p).ok()).filter(|p| *p >= 0) {
        if let Some(c) = spec.containers.first_mut() {
            c.ports = vec![ContainerPort { container_port: port, ..Default::default() }];
        }
    }
    d.spec.template.spec = Rc::new(spec);
    let obj = Object::from(d);
    if !dry.sends() {
        return Ok(Output::ok(format!("deployment.apps/{name} created (dry run)\n")));
    }
    if super::apply::declared_pods(sim) + super::apply::replicas_of(sim, &obj) > MAX_PODS as i64 {
        return Err(Output::error(format!(
            "refused: the cluster would declare more than {MAX_PODS} pods; kubeloop simulates at most {MAX_PODS}"
        )));
    }
    match dry.send(sim, |api| api.create(obj)) {
        Ok(_) => Ok(Output::ok(format!("deployment.apps/{name} created{}\n", dry.suffix()))),
        Err(e @ crate::store::ApiError::Invalid(_)) => {
            Ok(Output { stderr: format!("{}\n", server_error_line(&e)), code: 1, ..Default::default() })
        }
        Err(e) => Err(Output::error(format!("failed to create deployment: {e}"))),
    }
}

/// `create job NAME --image=IMAGE [-- COMMAND [args...]]` (`CreateJobOptions.createJob`): one container named
/// after the Job running the command, restartPolicy Never. The words after the name are the command (kubectl
/// takes them after `--` only).
fn job(sim: &mut Sim, args: &Args, dry: DryRun) -> Result<Output, Output> {
    let Some(name) = args.positional.get(1).cloned() else {
        return Err(Output::error(
            "exactly one NAME is required, got 0\nSee 'kubectl create job -h' for help and examples",
        ));
    };
    let ns = super::namespace(args);
    let mut j = crate::api::Job::default();
    match (args.values("image").first(), args.values("from").first()) {
        (Some(_), Some(_)) => return Err(Output::error("--image and --from are mutually exclusive")),
        (None, None) => return Err(Output::error("either --image or --from must be specified")),
        (Some(image), None) => {
            let command = args.positional[2..].iter().map(|w| s(w)).collect();
            let container = Container { name: s(&name), image: s(image), command, ..Default::default() };
            let spec = PodSpec { containers: vec![container].into(), restart_policy: s("Never"), ..Default::default() };
            j.spec.template.spec = Rc::new(spec);
        }
        (None, Some(from)) => j = from_cronjob(sim, from, &ns)?,
    }
    j.metadata.name = s(&name);
    j.metadata.namespace = s(&ns);
    if !dry.sends() {
        return Ok(Output::ok(format!("job.batch/{name} created (dry run)\n")));
    }
    match dry.send(sim, |api| api.create(Object::Job(j))) {
        Ok(_) => Ok(Output::ok(format!("job.batch/{name} created{}\n", dry.suffix()))),
        Err(e @ crate::store::ApiError::Invalid(_)) => {
            Ok(Output { stderr: format!("{}\n", server_error_line(&e)), code: 1, ..Default::default() })
        }
        Err(e) => Err(Output::error(format!("failed to create job: {e}"))),
    }
}

/// `create job --from=cronjob/NAME` (`createJobFromCronJob`): the CronJob's job template, the annotation
/// `cronjob.kubernetes.io/instantiate: manual`, and the CronJob as its controller.
fn from_cronjob(sim: &mut Sim, from: &str, ns: &str) -> Result<crate::api::Job, Output> {
    let Some((kind, name)) = from.split_once('/') else {
        return Err(Output::error(format!("from must be of the form <resource>/<name>, got {from:?}")));
    };
    if !matches!(kind, "cronjob" | "cronjobs" | "cj" | "cronjob.batch" | "cronjobs.batch") {
        return Err(Output::error(format!("unknown object type {kind}")));
    }
    let key = crate::api::ObjKey::new(ns, name);
    let found = sim.as_user(|api| api.get(Kind::CronJob, &key));
    let cj = match found.as_deref().map(|o| o.as_cronjob()) {
        Ok(Some(cj)) => cj.clone(),
        Ok(None) => return Err(Output::error(format!("cronjobs.batch \"{name}\" not found"))),
        Err(e) => return Err(Output::error(format!("Error from server ({}): {e}", e.reason()))),
    };
    let t = &cj.spec.job_template;
    let mut j = crate::api::Job::default();
    j.metadata.labels = t.metadata.labels.clone();
    j.metadata.annotations = t.metadata.annotations.clone();
    j.metadata.annotations.insert(s("cronjob.kubernetes.io/instantiate"), s("manual"));
    j.metadata.owner_references.push(crate::api::OwnerReference::controller(Kind::CronJob, &cj.metadata));
    j.spec = t.spec.clone();
    Ok(j)
}

/// `create cronjob NAME --image=IMAGE --schedule=SCHEDULE [--restart=OnFailure|Never] [-- COMMAND [args...]]`
/// (`CreateCronJobOptions`): one container named after the CronJob, restartPolicy OnFailure unless given.
fn cronjob(sim: &mut Sim, args: &Args, dry: DryRun) -> Result<Output, Output> {
    let Some(name) = args.positional.get(1).cloned() else {
        return Err(Output::error(
            "exactly one NAME is required, got 0\nSee 'kubectl create cronjob -h' for help and examples",
        ));
    };
    let Some(image) = args.values("image").first().cloned() else {
        return Err(Output::error("--image must be specified"));
    };
    let Some(schedule) = args.values("schedule").first().cloned() else {
        return Err(Output::error("--schedule must be specified"));
    };
    let restart = args.values("restart").first().cloned().unwrap_or_else(|| "OnFailure".into());
    if !matches!(restart.as_str(), "OnFailure" | "Never") {
        return Err(Output::error(format!("invalid restart policy: {restart}")));
    }
    let command = args.positional[2..].iter().map(|w| s(w)).collect();
    let mut c = crate::api::CronJob::default();
    c.metadata.name = s(&name);
    c.metadata.namespace = s(&super::namespace(args));
    c.spec.schedule = s(&schedule);
    c.spec.job_template.metadata.name = s(&name);
    let container = Container { name: s(&name), image: s(&image), command, ..Default::default() };
    let spec = PodSpec { containers: vec![container].into(), restart_policy: s(&restart), ..Default::default() };
    c.spec.job_template.spec.template.spec = Rc::new(spec);
    if !dry.sends() {
        return Ok(Output::ok(format!("cronjob.batch/{name} created (dry run)\n")));
    }
    match dry.send(sim, |api| api.create(Object::CronJob(c))) {
        Ok(_) => Ok(Output::ok(format!("cronjob.batch/{name} created{}\n", dry.suffix()))),
        Err(e @ crate::store::ApiError::Invalid(_)) => {
            Ok(Output { stderr: format!("{}\n", server_error_line(&e)), code: 1, ..Default::default() })
        }
        Err(e) => Err(Output::error(format!("failed to create cronjob: {e}"))),
    }
}

fn namespace(sim: &mut Sim, args: &Args, dry: DryRun) -> Result<Output, Output> {
    let name = one_name(args, "namespace")?;
    let mut ns = Namespace::default();
    ns.metadata.name = s(&name);
    if !dry.sends() {
        return Ok(Output::ok(format!("namespace/{name} created (dry run)\n")));
    }
    match dry.send(sim, |api| api.create(Object::from(ns))) {
        Ok(_) => Ok(Output::ok(format!("namespace/{name} created{}\n", dry.suffix()))),
        Err(e) => Ok(Output { stderr: format!("{}\n", server_error_line(&e)), code: 1, ..Default::default() }),
    }
}
