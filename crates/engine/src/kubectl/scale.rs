//! `kubectl scale`: sets `spec.replicas` of Deployments and ReplicaSets through the scale subresource (a GET of
//! each named object, a GET of its scale when `--current-replicas` asks for a precondition, then the write).

use super::args::{switch, value, Args, Flag};
use super::delete::{select, server_error_line};
use super::dry_run::{self, DryRun};
use super::{Command, Input, Output};
use crate::api::{Kind, Object};
use crate::sim::{Sim, MAX_PODS};
use crate::store::Subresource;

pub const COMMAND: Command = Command {
    name: "scale",
    summary: "Set a new size for a deployment, replica set, or replication controller",
    usage: "kubectl scale [--resource-version=version] [--current-replicas=count] --replicas=COUNT (-f FILENAME | TYPE NAME)",
    flags: FLAGS,
    run,
};

const FLAGS: &[Flag] = &[
    value("replicas", None),
    value("current-replicas", None),
    value("selector", Some('l')),
    switch("all", None),
    dry_run::FLAG,
];

fn run(sim: &mut Sim, args: &Args, _input: &Input) -> Result<Output, Output> {
    let dry = DryRun::of(args)?;
    dry_run::warned(args, scale(sim, args, dry))
}

fn scale(sim: &mut Sim, args: &Args, dry: DryRun) -> Result<Output, Output> {
    if !args.has("replicas") {
        return Err(Output::error("required flag(s) \"replicas\" not set"));
    }
    let replicas = match args.int("replicas") {
        Ok(Some(r)) => r,
        Ok(None) => -1,
        Err(e) => return Err(Output::error(e)),
    };
    // kubectl's flag defaults to -1, "no condition": typing -1 is the same as leaving it out. Here no
    // precondition is `None`, not a number.
    let typed_current = args.int("current-replicas").map_err(Output::error)?;
    let current = typed_current.filter(|c| *c != -1);
    if replicas < 0 {
        return Err(Output::error(
            "The --replicas=COUNT flag is required, and COUNT must be greater than or equal to 0",
        ));
    }
    if typed_current.is_some_and(|c| c < -1) {
        return Err(Output::error("The --current-replicas must specify an integer of -1 or greater"));
    }
    if replicas > i32::MAX as i64 {
        return Err(Output::error(format!(
            "invalid argument \"{replicas}\" for \"--replicas\" flag: strconv.ParseInt: parsing \"{replicas}\": value out of range"
        )));
    }
    let sel = select(sim, args, &args.positional, true)?;
    if sel.items.is_empty() && sel.errors.is_empty() {
        return Err(Output::error("no objects passed to scale"));
    }
    let mut out = Output::default();
    for item in &sel.items {
        let Some(obj) = &item.obj else { continue };
        if !dry.sends() {
            // kubectl sets spec.replicas on its copy of whatever it read, and prints it.
            out.stdout.push_str(&format!("{}/{} scaled (dry run)\n", item.kind.resource_ref(), item.key.name));
            continue;
        }
        let live = match &**obj {
            Object::Deployment(d) => d.spec.replicas.unwrap_or(1) as i64,
            Object::ReplicaSet(r) => r.spec.replicas.unwrap_or(1) as i64,
            Object::StatefulSet(s) => s.replicas() as i64,
            _ => {
                // No scale subresource: the server answers 404 for `KIND/scale`.
                out.push(Output {
                    stderr: "Error from server (NotFound): the server could not find the requested resource\n".into(),
                    code: 1,
                    ..Default::default()
                });
                return Ok(out);
            }
        };
        if let Some(current) = current {
            // The precondition is checked against the scale subresource's GET.
            let scale = match sim.as_user(|api| api.get(item.kind, &item.key)) {
                Ok(o) => o,
                Err(e) => {
                    out.push(Output { stderr: format!("{}\n", server_error_line(&e)), code: 1, ..Default::default() });
                    return Ok(out);
                }
            };
            let now = match &*scale {
                Object::Deployment(d) => d.spec.replicas.unwrap_or(1) as i64,
                Object::ReplicaSet(r) => r.spec.replicas.unwrap_or(1) as i64,
                Object::StatefulSet(s) => s.replicas() as i64,
                _ => live,
            };
            if now != current {
                out.push(Output::error(format!("Expected replicas to be {current}, was {now}")));
                return Ok(out);
            }
        }
        // kubeloop's envelope: every pod the cluster declares must fit.
        let declared = super::apply::declared_pods(sim) - super::apply::replicas_of(sim, obj) + replicas;
        let owned = item.kind == Kind::ReplicaSet && crate::api::controller_of(obj.meta()).is_some();
        if !owned && replicas > live && declared > MAX_PODS as i64 {
            out.push(Output::error(format!(
                "refused: scaling {}/{} to {replicas} would make the cluster declare {declared} pods; kubeloop simulates at most {MAX_PODS} (Kubernetes' scalability envelope)",
                item.kind.resource_ref(),
                item.key.name
            )));
            return Ok(out);
        }
        let r = replicas as i32;
        let res = dry.send(sim, |api| {
            api.patch(item.kind, &item.key, Subresource::Main, |o| match o {
                Object::Deployment(d) => d.spec.replicas = Some(r),
                Object::ReplicaSet(rs) => rs.spec.replicas = Some(r),
                Object::StatefulSet(s) => s.spec.replicas = Some(r),
                _ => {}
            })
        });
        match res {
            Ok(_) => {
                out.stdout.push_str(&format!("{}/{} scaled{}\n", item.kind.resource_ref(), item.key.name, dry.suffix()))
            }
            Err(e) => {
                out.push(Output { stderr: format!("{}\n", server_error_line(&e)), code: 1, ..Default::default() });
                return Ok(out);
            }
        }
    }
    out.push(sel.error_output());
    Ok(out)
}
