//! `capkg subst` and `capkg vars` run as users run them.

use assert_cmd::cargo::cargo_bin_cmd;
use serde_json::Value;

fn capkg() -> assert_cmd::Command {
    let mut cmd = cargo_bin_cmd!("capkg");
    // No clusterctl config from the machine running the tests.
    cmd.env("HOME", "/nonexistent")
        .env("XDG_CONFIG_HOME", "/nonexistent");
    cmd
}

#[test]
fn substitutes_from_flags_environment_and_defaults() {
    let output = capkg()
        .args(["subst", "--var", "CLUSTER_NAME=demo"])
        .env("NAMESPACE", "ns1")
        .write_stdin(
            "name: ${CLUSTER_NAME}\nns: ${ NAMESPACE }\nreplicas: ${N:=3}\nliteral: $${KEEP}\n",
        )
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        "name: demo\nns: ns1\nreplicas: 3\nliteral: ${KEEP}\n"
    );
}

#[test]
fn names_are_case_insensitive_like_viper() {
    let output = capkg()
        .args(["subst"])
        .env("CLUSTER_NAME", "from-env")
        .write_stdin("a: ${cluster_name}\n")
        .output()
        .unwrap();
    assert_eq!(String::from_utf8(output.stdout).unwrap(), "a: from-env\n");
}

#[test]
fn missing_variables_exit_1_with_clusterctls_message_and_no_output() {
    let output = capkg()
        .args(["subst"])
        .env_remove("ZZ_B")
        .env_remove("ZZ_A")
        .write_stdin("a: ${ZZ_B}\nb: ${ZZ_A}\nc: ${ZZ_C:=x}\n")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("value for variables [ZZ_A, ZZ_B] is not set. Please set the value using os environment variables or the clusterctl config file"),
        "{stderr}"
    );
}

#[test]
fn parse_errors_are_located_and_exit_1() {
    let output = capkg()
        .args(["subst"])
        .write_stdin("a: 1\nb: ${A-x}\n")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("<stdin>:2:"), "{stderr}");
    assert!(stderr.contains("missing closing brace"), "{stderr}");
}

#[test]
fn plain_mode_is_drones_eval() {
    // No pre-pass, no missing check, names as written, unset is empty.
    let output = capkg()
        .args(["subst", "--plain", "--var", "a=lower"])
        .env_remove("UNSET_XYZ")
        .write_stdin("${a}|${UNSET_XYZ}|${A:-d}\n")
        .output()
        .unwrap();
    assert!(output.status.success());
    assert_eq!(String::from_utf8(output.stdout).unwrap(), "lower||d\n");
    let output = capkg()
        .args(["subst", "--plain"])
        .write_stdin("${ A }")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
}

#[test]
fn clusterctl_config_file_supplies_values() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("clusterctl.yaml");
    std::fs::write(&config, "AWS_REGION: eu-west-1\nproviders: []\n").unwrap();
    let output = capkg()
        .args(["subst", "--clusterctl-config"])
        .arg(&config)
        .env_remove("AWS_REGION")
        .write_stdin("region: ${AWS_REGION}\n")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        "region: eu-west-1\n"
    );
    // The environment wins over the file.
    let output = capkg()
        .args(["subst", "--clusterctl-config"])
        .arg(&config)
        .env("AWS_REGION", "us-east-1")
        .write_stdin("region: ${AWS_REGION}\n")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        "region: us-east-1\n"
    );
}

#[test]
fn output_is_bytes_not_reserialised_yaml() {
    let input = "# comment kept\nkey:   value   # spacing kept\nlist: [ a,b ]\n";
    let output = capkg().args(["subst"]).write_stdin(input).output().unwrap();
    assert_eq!(String::from_utf8(output.stdout).unwrap(), input);
}

#[test]
fn vars_lists_required_and_optional_like_clusterctl() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cluster-template.yaml");
    std::fs::write(&file, "a: ${B}\nb: ${A:=x}\nc: ${C:-}\n# ${D}\n").unwrap();
    let output = capkg().arg("vars").arg(&file).output().unwrap();
    assert!(output.status.success());
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        "Required Variables:\n  - B\n  - C\n  - D\n\nOptional Variables:\n  - A  (defaults to \"x\")\n\n"
    );
    let output = capkg()
        .args(["vars", "--format", "json"])
        .arg(&file)
        .output()
        .unwrap();
    let value: Value = serde_json::from_slice(&output.stdout).unwrap();
    let vars = value["variables"].as_array().unwrap();
    assert_eq!(vars.len(), 4);
    assert_eq!(vars[0]["name"], "A");
    assert_eq!(vars[0]["required"], false);
    assert_eq!(vars[0]["default"], "x");
    assert_eq!(vars[1]["name"], "B");
    assert_eq!(vars[1]["required"], true);
    assert!(vars[1]["default"].is_null());
}

#[test]
fn vars_lists_every_corpus_file() {
    let mut files = Vec::new();
    for provider in crate::common::corpus_providers() {
        for file in std::fs::read_dir(provider).unwrap() {
            let path = file.unwrap().path();
            if path.extension().is_some_and(|e| e == "yaml") {
                files.push(path);
            }
        }
    }
    files.sort();
    assert!(files.len() > 50, "{}", files.len());
    let output = capkg()
        .args(["vars", "--format", "json"])
        .args(&files)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let value: Value = serde_json::from_slice(&output.stdout).unwrap();
    let names: Vec<&str> = value["variables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"CLUSTER_NAME"));
    assert!(names.contains(&"GCP_REGION"));
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted, "sorted bytewise as clusterctl sorts");
}
