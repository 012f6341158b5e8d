//! `--dry-run`, as kubectl 1.34 reads it (`cmdutil.AddDryRunFlag`, `cmdutil.GetDryRunStrategy`,
//! `cmdutil.PrintFlagsWithDryRunStrategy` in staging/src/k8s.io/kubectl/pkg/cmd/util/helpers.go):
//! - `client`: kubectl reads what it needs and sends no write at all; it prints what it would have done with
//!   ` (dry run)`. Nothing server-side (admission, validation, kubeloop's envelope) is asked.
//! - `server`: kubectl sends every write with `dryRun=All` (`Api::dry_run`): the API server admits and validates
//!   it and answers as it would, errors included, and persists nothing; kubectl prints ` (server dry run)`.
//! - `none` (the default) writes. A bare `--dry-run` is pflag's `NoOptDefVal` `unchanged`, read as `client`; a
//!   boolean value is read as `client` (true) or `none` (false); both with klog's deprecation warning.

use super::args::{optional, Args, Flag};
use super::Output;
use crate::client::Api;
use crate::sim::Sim;

/// The flag every command that may write declares.
pub(super) const FLAG: Flag = optional("dry-run", NO_OPT);

/// What a bare `--dry-run` stands for.
const NO_OPT: &str = "unchanged";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum DryRun {
    None,
    Client,
    Server,
}

impl DryRun {
    /// The strategy `--dry-run` asks for; kubectl's error for a value it does not know.
    pub(super) fn of(args: &Args) -> Result<DryRun, Output> {
        strategy(args.value("dry-run")).map(|(d, _)| d).map_err(Output::error)
    }

    /// What kubectl appends to each line it prints (`node/x cordoned (server dry run)`).
    pub(super) fn suffix(self) -> &'static str {
        match self {
            DryRun::None => "",
            DryRun::Client => " (dry run)",
            DryRun::Server => " (server dry run)",
        }
    }

    /// Whether kubectl sends writes (as they are, or as server dry runs).
    pub(super) fn sends(self) -> bool {
        self != DryRun::Client
    }

    /// Sends `f`'s requests under the user's client: as they are, or with `dryRun=All` for a server dry run.
    pub(super) fn send<T>(self, sim: &mut Sim, f: impl FnOnce(&mut Api) -> T) -> T {
        sim.as_user(|api| if self == DryRun::Server { api.dry_run(f) } else { f(api) })
    }
}

/// `GetDryRunStrategy`: the strategy and the deprecation warning (klog's, for a bare or boolean value).
fn strategy(value: Option<&str>) -> Result<(DryRun, Option<String>), String> {
    let Some(v) = value else { return Ok((DryRun::None, None)) };
    match v {
        "client" => Ok((DryRun::Client, None)),
        "server" => Ok((DryRun::Server, None)),
        "none" => Ok((DryRun::None, None)),
        NO_OPT => {
            Ok((DryRun::Client, Some("--dry-run is deprecated and can be replaced with --dry-run=client.".into())))
        }
        // strconv.ParseBool's spellings.
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Ok((DryRun::Client, Some(deprecated_bool(v, "client")))),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Ok((DryRun::None, Some(deprecated_bool(v, "none")))),
        v => Err(format!(
            "Invalid dry-run value ({}). Must be \"none\", \"server\", or \"client\".",
            crate::limits::echo(v)
        )),
    }
}

fn deprecated_bool(v: &str, to: &str) -> String {
    format!("--dry-run={v} is deprecated (boolean value) and can be replaced with --dry-run={to}.")
}

/// A command's result with klog's deprecation warning for a bare or boolean `--dry-run` in front (kubectl logs it
/// on stderr while it reads its flags, before anything else). klog's header (the time, kubectl's process id and
/// source line) is left out: a simulated kubectl has neither a wall clock nor a process.
pub(super) fn warned(args: &Args, result: Result<Output, Output>) -> Result<Output, Output> {
    let Ok((_, Some(warning))) = strategy(args.value("dry-run")) else { return result };
    let warn = |mut out: Output| {
        out.warnings.insert_str(0, &format!("{warning}\n"));
        out
    };
    result.map(warn).map_err(warn)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_read_like_get_dry_run_strategy() {
        let read = |v: Option<&str>| strategy(v).map(|(d, w)| (d, w.is_some()));
        assert_eq!(read(None), Ok((DryRun::None, false)));
        assert_eq!(read(Some("none")), Ok((DryRun::None, false)));
        assert_eq!(read(Some("client")), Ok((DryRun::Client, false)));
        assert_eq!(read(Some("server")), Ok((DryRun::Server, false)));
        assert_eq!(read(Some("unchanged")), Ok((DryRun::Client, true)));
        assert_eq!(read(Some("T")), Ok((DryRun::Client, true)));
        assert_eq!(read(Some("0")), Ok((DryRun::None, true)));
        assert_eq!(
            strategy(Some("true")).map(|(_, w)| w),
            Ok(Some("--dry-run=true is deprecated (boolean value) and can be replaced with --dry-run=client.".into()))
        );
        assert_eq!(
            strategy(Some("Server")).map(|(d, _)| d),
            Err("Invalid dry-run value (Server). Must be \"none\", \"server\", or \"client\".".into())
        );
    }
}
