//! The integration tests: one binary that runs the built `capkg` on `testdata/` and on servers
//! the tests start. Each module is one area; the helper modules are shared.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests and benchmarks may panic

mod assemble_corpus;
mod assemble_example;
mod assemble_transform;
mod clusterctl_words;
mod common;
mod completions;
mod configmaps;
mod diff;
mod diff_cases;
mod diff_templates;
mod diff_waivers;
#[cfg(unix)] // the book's commands are POSIX shell (contributing.md, "Tests on macOS and Windows")
mod docs_commands;
mod docs_links;
mod first_run;
mod forge_facts;
mod hermetic;
mod hostile_files;
mod hostile_init;
mod hostile_network;
mod hostile_oci;
mod hostile_origins;
mod hostile_output;
mod hostile_previous;
mod hostile_secrets;
mod hostile_yaml;
mod images_waivers;
mod init_release_workflows;
mod init_repos;
mod init_scaffold;
mod layering;
mod lint;
mod lint_contract;
mod lint_wiring;
mod multi_provider;
mod oci_e2e;
mod oci_faults;
mod output_contract;
mod provider_identity;
mod publish_fakes;
mod publish_github;
mod publish_gitlab;
mod publish_local;
mod release_ci;
mod release_common;
mod release_draft;
mod release_e2e;
mod release_upgrade;
mod release_version;
mod render_corpus;
mod repos_release;
mod subst_cases;
mod subst_cli;
mod subst_common;
mod subst_corpus;
mod subst_props;
mod tls_front;
mod verify_sources;
mod walkthrough;
