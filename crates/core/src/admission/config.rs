//! ConfigMaps and Secrets (`ValidateConfigMap`, `ValidateSecret`): keys, a key in both of a ConfigMap's maps, at
//! most 1 MiB of values (the values' bytes, keys not counted), and the keys each built-in Secret type requires.

use super::{invalid_each, q, FieldError};
use crate::api::config::base64_decoded_len;
use crate::api::names;
use crate::api::{ConfigMap, Secret};

/// `MaxSecretSize`: the values of one ConfigMap or Secret, in bytes.
pub const MAX_DATA_BYTES: usize = 1 << 20;

/// `ValidateConfigMap`. The size error names no field (upstream passes an empty path, printed `[]`).
pub(super) fn validate_config_map(cm: &ConfigMap, errs: &mut Vec<FieldError>) {
    let mut size = 0usize;
    for (k, v) in &cm.data {
        let at = format!("data[{k}]");
        invalid_each(&at, k, names::config_map_key(k), errs);
        if cm.binary_data.contains_key(k) {
            errs.push(FieldError::invalid(at, q(k), "duplicate of key present in binaryData"));
        }
        size = size.saturating_add(v.len());
    }
    for (k, v) in &cm.binary_data {
        invalid_each(&format!("binaryData[{k}]"), k, names::config_map_key(k), errs);
        size = size.saturating_add(base64_decoded_len(v));
    }
    if size > MAX_DATA_BYTES {
        errs.push(FieldError::too_long("[]", MAX_DATA_BYTES).located_at("data"));
    }
}

/// `ValidateSecret`.
pub(super) fn validate_secret(sec: &Secret, errs: &mut Vec<FieldError>) {
    let mut size = 0usize;
    for (k, v) in &sec.data {
        invalid_each(&format!("data[{k}]"), k, names::config_map_key(k), errs);
        size = size.saturating_add(base64_decoded_len(v));
    }
    if size > MAX_DATA_BYTES {
        errs.push(FieldError::too_long("data", MAX_DATA_BYTES));
    }
    secret_type(sec, errs);
}

/// The keys each built-in Secret type requires.
fn secret_type(sec: &Secret, errs: &mut Vec<FieldError>) {
    let has = |key: &str| sec.data.contains_key(key);
    let required = |key: &str| FieldError::required(format!("data[{key}]"));
    match &*sec.type_ {
        "kubernetes.io/service-account-token"
            if sec.metadata.annotations.get("kubernetes.io/service-account.name").is_none_or(|v| v.is_empty()) =>
        {
            errs.push(FieldError::required("metadata.annotations[kubernetes.io/service-account.name]"))
        }
        "kubernetes.io/dockercfg" if !has(".dockercfg") => errs.push(required(".dockercfg")),
        "kubernetes.io/dockerconfigjson" if !has(".dockerconfigjson") => errs.push(required(".dockerconfigjson")),
        "kubernetes.io/basic-auth" if !has("username") && !has("password") => {
            errs.push(required("username"));
            errs.push(required("password"));
        }
        // An empty key is as missing as an absent one.
        "kubernetes.io/ssh-auth" if sec.data.get("ssh-privatekey").is_none_or(|v| base64_decoded_len(v) == 0) => {
            errs.push(required("ssh-privatekey"))
        }
        "kubernetes.io/tls" => {
            for key in ["tls.crt", "tls.key"] {
                if !has(key) {
                    errs.push(required(key));
                }
            }
        }
        _ => {}
    }
}
