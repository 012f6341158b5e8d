//! `kubectl set image`: a GET of each object, then a PATCH of the container images in its pod template
//! (Deployments, ReplicaSets) or its spec (Pods). A Deployment's new template makes a new ReplicaSet.

use std::rc::Rc;

use super::args::{switch, value, Args};
use super::delete::{select, server_error_line};
use super::dry_run::{self, DryRun};
use super::label::resources_and_pairs;
use super::{Command, Input, Output};
use crate::api::{s, Container, Object};
use crate::sim::Sim;
use crate::store::Subresource;

pub const COMMAND: Command = Command {
    name: "set",
    summary: "Set specific features on objects",
    usage: "kubectl set image (-f FILENAME | TYPE NAME) CONTAINER_NAME_1=CONTAINER_IMAGE_1 ... CONTAINER_NAME_N=CONTAINER_IMAGE_N",
    flags: &[
        value("selector", Some('l')),
        switch("all", None),
        dry_run::FLAG,
    ],
    run,
};

const SUBCOMMANDS: &str = "Configure application resources.\n\n These commands help you make changes to existing application resources.\n\nAvailable Commands:\n  image            Update the image of a pod template\n\nUsage:\n  kubectl set SUBCOMMAND [options]\n";

fn run(sim: &mut Sim, args: &Args, _: &Input) -> Result<Output, Output> {
    let Some(sub) = args.positional.first() else { return Ok(Output::ok(SUBCOMMANDS)) };
    match sub.as_str() {
        "image" => {
            let dry = DryRun::of(args)?;
            dry_run::warned(args, image(sim, args, &args.positional[1..], dry))
        }
        "env" | "resources" | "selector" | "serviceaccount" | "subject" => {
            Err(Output::error(format!("\"kubectl set {sub}\" is not simulated by kubeloop: use `kubectl set image`, or edit the YAML and apply it")))
        }
        other => Err(Output::error(format!(
            "unknown command \"{other}\" for \"kubectl set\"\nSee 'kubectl set -h' for help and examples"
        ))),
    }
}

/// Sets `name`'s image (`*`: every container); whether a container of that name was found.
fn set_image(containers: &mut [Container], name: &str, image: &str) -> bool {
    let mut found = false;
    for c in containers.iter_mut() {
        if name == "*" || &*c.name == name {
            c.image = s(image);
            found = true;
        }
    }
    found
}

fn image(sim: &mut Sim, args: &Args, words: &[String], dry: DryRun) -> Result<Output, Output> {
    let (resources, pairs) = resources_and_pairs(words, "image").map_err(Output::error)?;
    // ParsePairs(..., "image", false): `NAME=IMAGE` only.
    let mut images: Vec<(String, String)> = Vec::new();
    let mut invalid = Vec::new();
    for p in &pairs {
        match p.split_once('=') {
            Some((n, i)) if !n.is_empty() => {
                images.retain(|(k, _)| k != n);
                images.push((n.to_string(), i.to_string()));
            }
            _ => invalid.push(p.as_str()),
        }
    }
    if !invalid.is_empty() {
        return Err(Output::error(format!("invalid image format: {}", invalid.join(", "))));
    }
    let mut errs = Vec::new();
    if args.bool("all") && args.has("selector") {
        errs.push("cannot set --all and --selector at the same time");
    }
    if resources.is_empty() {
        errs.push("one or more resources must be specified as <resource> <name> or <resource>/<name>");
    }
    if images.is_empty() {
        errs.push("at least one image update is required");
    }
    if images.len() > 1 && images.iter().any(|(n, _)| n == "*") {
        errs.push(
            "all containers are already specified by *, but saw more than one container_name=container_image pairs",
        );
    }
    match errs.len() {
        0 => {}
        1 => return Err(Output::error(errs[0])),
        _ => return Err(Output::error(format!("[{}]", errs.join(", ")))),
    }
    let sel = select(sim, args, &resources, true)?;
    let mut out = Output::default();
    let mut errors: Vec<String> = Vec::new();
    for item in &sel.items {
        let Some(obj) = &item.obj else { continue };
        let mut next = (**obj).clone();
        let spec = match &mut next {
            Object::Deployment(d) => Rc::make_mut(&mut d.spec.template.spec),
            Object::ReplicaSet(r) => Rc::make_mut(&mut r.spec.template.spec),
            Object::Pod(p) => Rc::make_mut(&mut p.spec),
            _ => {
                errors.push(format!(
                    "error: {}/{} the object is not a pod or does not have a pod template: *v1.{}",
                    item.kind.plural(),
                    item.key.name,
                    item.kind.name()
                ));
                continue;
            }
        };
        for (name, img) in &images {
            if !set_image(&mut spec.containers, name, img) {
                errors.push(format!("error: unable to find container named {name:?}"));
            }
        }
        // No change: kubectl sends no patch and prints nothing.
        if next == **obj {
            continue;
        }
        let name = format!("{}/{}", item.kind.resource_ref(), item.key.name);
        if !dry.sends() {
            out.stdout.push_str(&format!("{name} image updated (dry run)\n"));
            continue;
        }
        let images = images.clone();
        let res = dry.send(sim, |api| {
            api.patch(item.kind, &item.key, Subresource::Main, |o| {
                let spec = match o {
                    Object::Deployment(d) => Rc::make_mut(&mut d.spec.template.spec),
                    Object::ReplicaSet(r) => Rc::make_mut(&mut r.spec.template.spec),
                    Object::Pod(p) => Rc::make_mut(&mut p.spec),
                    _ => return,
                };
                for (n, i) in &images {
                    set_image(&mut spec.containers, n, i);
                }
            })
        });
        match res {
            Ok(_) => out.stdout.push_str(&format!("{name} image updated{}\n", dry.suffix())),
            Err(e) => errors.push(format!("failed to patch image update to pod template: {}", server_error_line(&e))),
        }
    }
    errors.extend(sel.errors.iter().cloned());
    out.fail_with(errors);
    Ok(out)
}
