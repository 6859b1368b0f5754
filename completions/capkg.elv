
use builtin;
use str;

set edit:completion:arg-completer[capkg] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'capkg'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'capkg'= {
            cand --format 'Output format'
            cand --color 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)'
            cand -q 'Print only errors and the data asked for'
            cand --quiet 'Print only errors and the data asked for'
            cand -v 'Say more about what is happening (repeat for more)'
            cand --verbose 'Say more about what is happening (repeat for more)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand lint 'Check release files against the clusterctl and provider contracts'
            cand rules 'List the lint rules, or explain one'
            cand subst 'Substitute variables as clusterctl does and print the result'
            cand vars 'List the variables files need, as `clusterctl generate cluster --list-variables` does'
            cand render 'Print what `clusterctl generate cluster` or `generate provider` would, from local files'
            cand assemble 'Build the release directory from `capkg.yaml` and the sources'
            cand init 'Scaffold `capkg.yaml` and CI files for a provider repository'
            cand publish 'Publish an assembled release directory'
            cand release 'Tag -> assemble -> lint -> publish -> verify, in one step for CI'
            cand promote 'Make public a release `capkg release --draft` left, once its images exist'
            cand verify 'Read a published release as clusterctl does and lint it'
            cand diff 'Compare two releases: what changed, and what of it breaks an upgrade (`upgrade/…` rules)'
            cand configmaps 'Print the ConfigMaps cluster-api-operator reads the release''s providers from'
            cand completions 'Print a shell completion script'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'capkg;lint'= {
            cand --version 'The version being released (`v1.2.3`): checks `metadata.yaml` covers it and images carry it'
            cand --provider 'Provider name (`aws`); default: from the `cluster.x-k8s.io/provider` labels'
            cand --type 'Provider type: `infrastructure`, `bootstrap`, `control-plane`, `core`, `ipam`, `runtime-extension`, `addon`, or clusterctl''s `InfrastructureProvider`…; default: from the components file name'
            cand --allow 'Accept a rule''s findings (repeatable): `--allow RULE=REASON`, or `--allow RULE` (the reason then says it came from the command line). Waived findings are still shown, with the reason, and do not fail the run; `lint: allow:` in capkg.yaml says the same per file'
            cand --config 'capkg''s configuration file, for its `lint: allow:` waivers; default: the nearest `capkg.yaml` up to the repository root, if there is one'
            cand --format 'Output format'
            cand --color 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)'
            cand --all 'Lint every YAML file under the current folder, not the release capkg.yaml describes'
            cand --deny-warnings 'Exit 1 on warnings too'
            cand -q 'Print only errors and the data asked for'
            cand --quiet 'Print only errors and the data asked for'
            cand -v 'Say more about what is happening (repeat for more)'
            cand --verbose 'Say more about what is happening (repeat for more)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'capkg;rules'= {
            cand --format 'Output format'
            cand --color 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)'
            cand -q 'Print only errors and the data asked for'
            cand --quiet 'Print only errors and the data asked for'
            cand -v 'Say more about what is happening (repeat for more)'
            cand --verbose 'Say more about what is happening (repeat for more)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'capkg;subst'= {
            cand --var 'Set a variable (repeatable); wins over the environment and the clusterctl config file'
            cand --clusterctl-config 'A clusterctl configuration file whose top-level keys are variables; default: clusterctl''s own (`$XDG_CONFIG_HOME/cluster-api/clusterctl.yaml`, then `~/.cluster-api/clusterctl.yaml`) when it exists'
            cand --format 'Output format'
            cand --color 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)'
            cand --plain 'Exactly drone/envsubst''s `Eval`: no `${ VAR }` pre-pass, no missing-variable check, names looked up as written in the environment and `--var`, unset variables empty'
            cand -q 'Print only errors and the data asked for'
            cand --quiet 'Print only errors and the data asked for'
            cand -v 'Say more about what is happening (repeat for more)'
            cand --verbose 'Say more about what is happening (repeat for more)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'capkg;vars'= {
            cand --format 'Output format'
            cand --color 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)'
            cand -q 'Print only errors and the data asked for'
            cand --quiet 'Print only errors and the data asked for'
            cand -v 'Say more about what is happening (repeat for more)'
            cand --verbose 'Say more about what is happening (repeat for more)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'capkg;render'= {
            cand --cluster-name 'The cluster''s name (`CLUSTER_NAME`); required for templates'
            cand --flavor 'Pick `cluster-template-FLAVOR.yaml` from a provider folder'
            cand -n 'The namespace every object goes into (`NAMESPACE`); templates default to `default`, components to their Namespace object'
            cand --target-namespace 'The namespace every object goes into (`NAMESPACE`); templates default to `default`, components to their Namespace object'
            cand --kubernetes-version '`KUBERNETES_VERSION`'
            cand --control-plane-machine-count '`CONTROL_PLANE_MACHINE_COUNT` (default 1)'
            cand --worker-machine-count '`WORKER_MACHINE_COUNT` (default 0)'
            cand --var 'Set a variable (repeatable); wins over the environment and the clusterctl config file'
            cand --clusterctl-config 'A clusterctl configuration file whose top-level keys are variables; default: clusterctl''s own (`$XDG_CONFIG_HOME/cluster-api/clusterctl.yaml`, then `~/.cluster-api/clusterctl.yaml`) when it exists'
            cand --provider 'Provider name (`aws`); default: from the `cluster.x-k8s.io/provider` labels'
            cand --type 'Provider type: `infrastructure`, `bootstrap`, `control-plane`, `core`, `ipam`, `runtime-extension`, `addon`, or clusterctl''s `InfrastructureProvider`…; default: from the components file name'
            cand --format 'Output format'
            cand --color 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)'
            cand --list-variables 'Print the variables the template needs instead of rendering it'
            cand --raw 'Components only: do not substitute variables (`clusterctl generate provider --raw`)'
            cand -q 'Print only errors and the data asked for'
            cand --quiet 'Print only errors and the data asked for'
            cand -v 'Say more about what is happening (repeat for more)'
            cand --verbose 'Say more about what is happening (repeat for more)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'capkg;assemble'= {
            cand --config 'capkg''s configuration file; default: `capkg.yaml` at the repository root'
            cand --version 'The version being released (`v1.2.3`); default: the CI tag (`GITHUB_REF_NAME` on a tag push, `CI_COMMIT_TAG`), else `version:` in capkg.yaml (the order `release` follows)'
            cand --out 'Where to write the release (default `out/`, or `output:` in capkg.yaml)'
            cand --provider 'Provider name (`aws`); default: from the `cluster.x-k8s.io/provider` labels'
            cand --type 'Provider type: `infrastructure`, `bootstrap`, `control-plane`, `core`, `ipam`, `runtime-extension`, `addon`, or clusterctl''s `InfrastructureProvider`…; default: from the components file name'
            cand --components 'Components from files or folders of manifests, concatenated (repeatable; replaces `components:`)'
            cand --components-command 'Components from a command''s standard output, run with `sh -c` in the configuration''s folder (replaces `components:`)'
            cand --metadata '`metadata.yaml` of the release (replaces `metadata:`)'
            cand --templates 'Globs for cluster templates and ClusterClass files (repeatable; replaces `templates:`)'
            cand --namespace 'The namespace the components install into (replaces `namespace:`)'
            cand --format 'Output format'
            cand --color 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)'
            cand -q 'Print only errors and the data asked for'
            cand --quiet 'Print only errors and the data asked for'
            cand -v 'Say more about what is happening (repeat for more)'
            cand --verbose 'Say more about what is happening (repeat for more)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'capkg;init'= {
            cand --provider 'Provider name (`aws`); default: from the `cluster.x-k8s.io/provider` labels'
            cand --type 'Provider type: `infrastructure`, `bootstrap`, `control-plane`, `core`, `ipam`, `runtime-extension`, `addon`, or clusterctl''s `InfrastructureProvider`…; default: from the components file name'
            cand --format 'Output format'
            cand --color 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)'
            cand --force 'Overwrite files that already exist'
            cand -q 'Print only errors and the data asked for'
            cand --quiet 'Print only errors and the data asked for'
            cand -v 'Say more about what is happening (repeat for more)'
            cand --verbose 'Say more about what is happening (repeat for more)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'capkg;publish'= {
            cand --format 'Output format'
            cand --color 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)'
            cand -q 'Print only errors and the data asked for'
            cand --quiet 'Print only errors and the data asked for'
            cand -v 'Say more about what is happening (repeat for more)'
            cand --verbose 'Say more about what is happening (repeat for more)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand local 'A local repository clusterctl reads as `file://…/{provider-label}/{version}/{file}`'
            cand github 'A GitHub release (token from GITHUB_TOKEN or GH_TOKEN)'
            cand gitlab 'A GitLab generic package (token from GITLAB_TOKEN, GITLAB_ACCESS_TOKEN or CI_JOB_TOKEN)'
            cand oci 'An OCI artifact cluster-api-operator reads (`spec.fetchConfig.oci`); login from OCI_USERNAME/OCI_PASSWORD, OCI_ACCESS_TOKEN or the Docker config file'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'capkg;publish;local'= {
            cand --version 'The version being published (`v1.2.3`)'
            cand --provider 'Provider name (`aws`); default: from the `cluster.x-k8s.io/provider` labels'
            cand --type 'Provider type: `infrastructure`, `bootstrap`, `control-plane`, `core`, `ipam`, `runtime-extension`, `addon`, or clusterctl''s `InfrastructureProvider`…; default: from the components file name'
            cand --repository 'The repository''s base folder'
            cand --overrides 'Also print the overrides layout clusterctl reads from this folder'
            cand --format 'Output format'
            cand --color 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)'
            cand --dry-run 'Print the plan and touch nothing'
            cand --force 'Replace an existing, different version folder'
            cand -q 'Print only errors and the data asked for'
            cand --quiet 'Print only errors and the data asked for'
            cand -v 'Say more about what is happening (repeat for more)'
            cand --verbose 'Say more about what is happening (repeat for more)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'capkg;publish;github'= {
            cand --version 'The version being published (`v1.2.3`)'
            cand --provider 'Provider name (`aws`); default: from the `cluster.x-k8s.io/provider` labels'
            cand --type 'Provider type: `infrastructure`, `bootstrap`, `control-plane`, `core`, `ipam`, `runtime-extension`, `addon`, or clusterctl''s `InfrastructureProvider`…; default: from the components file name'
            cand --repo 'The repository, `OWNER/NAME`'
            cand --api-url 'API base URL; default GITHUB_API_URL, else https://api.github.com'
            cand --max-wait 'The longest capkg waits before a retry; a server that asks for more (a rate limit that resets in an hour) makes publish fail at once, saying how long it asked for (`90s`, `10m`, `1h`)'
            cand --retries 'Tries per request for failures worth retrying (5xx, cut connections, rate limits)'
            cand --http-timeout 'The longest one HTTP request may take, from connecting to the last byte of the answer (`90s`, `10m`, `1h`)'
            cand --min-transfer-rate 'The slowest transfer accepted while a body moves, judged over 30-second windows (`1KiB`, `64KiB`, `1MiB` per second; `0` turns the check off)'
            cand --max-download 'The largest answer capkg reads from a server (a release file `verify` downloads, a read-back); a larger one is refused without being read (`256MiB`, `1GiB`)'
            cand --format 'Output format'
            cand --color 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)'
            cand --dry-run 'Print the plan and touch nothing'
            cand --clobber 'Replace assets whose content differs'
            cand --draft 'Leave the release as a draft'
            cand --prerelease 'Mark the release as a pre-release (automatic for semver pre-releases)'
            cand -q 'Print only errors and the data asked for'
            cand --quiet 'Print only errors and the data asked for'
            cand -v 'Say more about what is happening (repeat for more)'
            cand --verbose 'Say more about what is happening (repeat for more)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'capkg;publish;gitlab'= {
            cand --version 'The version being published (`v1.2.3`)'
            cand --provider 'Provider name (`aws`); default: from the `cluster.x-k8s.io/provider` labels'
            cand --type 'Provider type: `infrastructure`, `bootstrap`, `control-plane`, `core`, `ipam`, `runtime-extension`, `addon`, or clusterctl''s `InfrastructureProvider`…; default: from the components file name'
            cand --project 'Project id or path; default CI_PROJECT_ID'
            cand --package 'Package name (default: the provider label)'
            cand --api-url 'API base URL; default CI_API_V4_URL'
            cand --max-wait 'The longest capkg waits before a retry; a server that asks for more (a rate limit that resets in an hour) makes publish fail at once, saying how long it asked for (`90s`, `10m`, `1h`)'
            cand --retries 'Tries per request for failures worth retrying (5xx, cut connections, rate limits)'
            cand --http-timeout 'The longest one HTTP request may take, from connecting to the last byte of the answer (`90s`, `10m`, `1h`)'
            cand --min-transfer-rate 'The slowest transfer accepted while a body moves, judged over 30-second windows (`1KiB`, `64KiB`, `1MiB` per second; `0` turns the check off)'
            cand --max-download 'The largest answer capkg reads from a server (a release file `verify` downloads, a read-back); a larger one is refused without being read (`256MiB`, `1GiB`)'
            cand --format 'Output format'
            cand --color 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)'
            cand --dry-run 'Print the plan and touch nothing'
            cand --clobber 'Upload files whose content differs from the one already in the package (GitLab then serves the new one)'
            cand -q 'Print only errors and the data asked for'
            cand --quiet 'Print only errors and the data asked for'
            cand -v 'Say more about what is happening (repeat for more)'
            cand --verbose 'Say more about what is happening (repeat for more)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'capkg;publish;oci'= {
            cand --version 'The version being published (`v1.2.3`)'
            cand --provider 'Provider name (`aws`); default: from the `cluster.x-k8s.io/provider` labels'
            cand --type 'Provider type: `infrastructure`, `bootstrap`, `control-plane`, `core`, `ipam`, `runtime-extension`, `addon`, or clusterctl''s `InfrastructureProvider`…; default: from the components file name'
            cand --repository 'The repository, `[http://]HOST[:PORT]/PATH[:TAG]` (`http://` only for loopback)'
            cand --tag 'The tag when REF has none; `{version}` is replaced (default `{version}`)'
            cand --max-wait 'The longest capkg waits before a retry; a server that asks for more (a rate limit that resets in an hour) makes publish fail at once, saying how long it asked for (`90s`, `10m`, `1h`)'
            cand --retries 'Tries per request for failures worth retrying (5xx, cut connections, rate limits)'
            cand --http-timeout 'The longest one HTTP request may take, from connecting to the last byte of the answer (`90s`, `10m`, `1h`)'
            cand --min-transfer-rate 'The slowest transfer accepted while a body moves, judged over 30-second windows (`1KiB`, `64KiB`, `1MiB` per second; `0` turns the check off)'
            cand --max-download 'The largest answer capkg reads from a server (a release file `verify` downloads, a read-back); a larger one is refused without being read (`256MiB`, `1GiB`)'
            cand --format 'Output format'
            cand --color 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)'
            cand --dry-run 'Print the plan and touch nothing'
            cand --force 'Move the tag when it points at a different artifact'
            cand -q 'Print only errors and the data asked for'
            cand --quiet 'Print only errors and the data asked for'
            cand -v 'Say more about what is happening (repeat for more)'
            cand --verbose 'Say more about what is happening (repeat for more)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'capkg;publish;help'= {
            cand local 'A local repository clusterctl reads as `file://…/{provider-label}/{version}/{file}`'
            cand github 'A GitHub release (token from GITHUB_TOKEN or GH_TOKEN)'
            cand gitlab 'A GitLab generic package (token from GITLAB_TOKEN, GITLAB_ACCESS_TOKEN or CI_JOB_TOKEN)'
            cand oci 'An OCI artifact cluster-api-operator reads (`spec.fetchConfig.oci`); login from OCI_USERNAME/OCI_PASSWORD, OCI_ACCESS_TOKEN or the Docker config file'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'capkg;publish;help;local'= {
        }
        &'capkg;publish;help;github'= {
        }
        &'capkg;publish;help;gitlab'= {
        }
        &'capkg;publish;help;oci'= {
        }
        &'capkg;publish;help;help'= {
        }
        &'capkg;release'= {
            cand --config 'capkg''s configuration file; default: `capkg.yaml` at the repository root'
            cand --version 'The version to release; default: the CI tag (`GITHUB_REF_NAME` on a tag push, `CI_COMMIT_TAG`), else `version:` in capkg.yaml (the order `assemble` follows)'
            cand --target 'Publish only to these targets of the configuration (repeatable)'
            cand --wait-for-images 'When images the components name are not in their registry yet (an image build running beside the release), look again with backoff for up to this long (`90s`, `15m`) before refusing; default: look once'
            cand --provider 'Provider name (`aws`); default: from the `cluster.x-k8s.io/provider` labels'
            cand --type 'Provider type: `infrastructure`, `bootstrap`, `control-plane`, `core`, `ipam`, `runtime-extension`, `addon`, or clusterctl''s `InfrastructureProvider`…; default: from the components file name'
            cand --http-timeout 'The longest one HTTP request may take, from connecting to the last byte of the answer (`90s`, `10m`, `1h`)'
            cand --min-transfer-rate 'The slowest transfer accepted while a body moves, judged over 30-second windows (`1KiB`, `64KiB`, `1MiB` per second; `0` turns the check off)'
            cand --max-download 'The largest answer capkg reads from a server (a release file `verify` downloads, a read-back); a larger one is refused without being read (`256MiB`, `1GiB`)'
            cand --max-layers 'The most layers `verify oci://` reads from one artifact; a larger one is refused before any layer is read'
            cand --images-timeout 'The time all image lookups of one check share; images not looked up by then are reported as not checked (`30s`, `2m`)'
            cand --max-list-pages 'The most pages capkg reads of one list (a repository''s releases, a project''s packages, a registry''s tags); a longer list is an error. A list is also held to `--max-download` bytes in all'
            cand --previous 'The release to compare with before publishing (`capkg diff`): a version looked up at each target (`v1.2.2`), a source `capkg verify` reads, or `none`; default: capkg.yaml `previous:`, else the newest version older than this one at each target'
            cand --format 'Output format'
            cand --color 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)'
            cand --dry-run 'Print the plan and touch nothing: no network access, nothing written (the upgrade check runs where the previous release is on this machine)'
            cand --draft 'Publish where nobody installs from it yet and stop: a GitHub draft release; the local folder, OCI tag and GitLab package version `draft-VERSION`. The images are not looked up; `capkg promote` does that, makes the draft public and verifies it'
            cand --allow-untagged-head 'Release the sources where capkg.yaml is although their HEAD is not tagged with the version (`--version` or `version:`; a CI tag push is never checked). Without it a release refuses such sources and a dry run warns'
            cand -q 'Print only errors and the data asked for'
            cand --quiet 'Print only errors and the data asked for'
            cand -v 'Say more about what is happening (repeat for more)'
            cand --verbose 'Say more about what is happening (repeat for more)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'capkg;promote'= {
            cand --config 'capkg''s configuration file; default: `capkg.yaml` at the repository root'
            cand --version 'The version to release; default: the CI tag (`GITHUB_REF_NAME` on a tag push, `CI_COMMIT_TAG`), else `version:` in capkg.yaml (the order `assemble` follows)'
            cand --target 'Publish only to these targets of the configuration (repeatable)'
            cand --wait-for-images 'When images the components name are not in their registry yet (an image build running beside the release), look again with backoff for up to this long (`90s`, `15m`) before refusing; default: look once'
            cand --provider 'Provider name (`aws`); default: from the `cluster.x-k8s.io/provider` labels'
            cand --type 'Provider type: `infrastructure`, `bootstrap`, `control-plane`, `core`, `ipam`, `runtime-extension`, `addon`, or clusterctl''s `InfrastructureProvider`…; default: from the components file name'
            cand --http-timeout 'The longest one HTTP request may take, from connecting to the last byte of the answer (`90s`, `10m`, `1h`)'
            cand --min-transfer-rate 'The slowest transfer accepted while a body moves, judged over 30-second windows (`1KiB`, `64KiB`, `1MiB` per second; `0` turns the check off)'
            cand --max-download 'The largest answer capkg reads from a server (a release file `verify` downloads, a read-back); a larger one is refused without being read (`256MiB`, `1GiB`)'
            cand --max-layers 'The most layers `verify oci://` reads from one artifact; a larger one is refused before any layer is read'
            cand --images-timeout 'The time all image lookups of one check share; images not looked up by then are reported as not checked (`30s`, `2m`)'
            cand --max-list-pages 'The most pages capkg reads of one list (a repository''s releases, a project''s packages, a registry''s tags); a longer list is an error. A list is also held to `--max-download` bytes in all'
            cand --format 'Output format'
            cand --color 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)'
            cand -q 'Print only errors and the data asked for'
            cand --quiet 'Print only errors and the data asked for'
            cand -v 'Say more about what is happening (repeat for more)'
            cand --verbose 'Say more about what is happening (repeat for more)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'capkg;verify'= {
            cand --api-url 'API base URL (GitHub Enterprise, a test server); default GITHUB_API_URL, else https://api.github.com. The SOURCE keeps its github.com form: `https://github.com/O/R/ releases/TAG/FILE` is read as `{api}/repos/O/R/releases/tags/TAG` and its assets'
            cand --version 'For `oci://REF`: the provider''s `spec.version`, which names the layers the operator reads (default: the tag in REF). For a folder outside the `{label}/{version}/` layout (`out/`): the version being released, checked as `lint --version` does'
            cand --provider 'Provider name (`aws`); default: from the `cluster.x-k8s.io/provider` labels'
            cand --type 'Provider type: `infrastructure`, `bootstrap`, `control-plane`, `core`, `ipam`, `runtime-extension`, `addon`, or clusterctl''s `InfrastructureProvider`…; default: from the components file name'
            cand --config 'capkg''s configuration file, for its `lint: allow:` waivers; default: the nearest `capkg.yaml` up to the repository root, if there is one'
            cand --max-wait 'The longest capkg waits before a retry, as for `publish`: a GitHub rate limit that resets later fails at once with clusterctl''s rate-limit message (`90s`, `10m`, `1h`)'
            cand --trusted-root 'Check the provenance statement''s signature (`capkg-provenance.sigstore.json`, a Sigstore bundle) against this Sigstore trusted root (`trusted_root.json`: the Fulcio CAs and Rekor keys); the signature is then required. Implies `--require-provenance`'
            cand --certificate-identity 'The signing certificate''s identity, exactly (its SAN: for GitHub Actions `https://github.com/O/R/.github/workflows/release.yml@refs/tags/v1.2.3`)'
            cand --certificate-identity-regexp 'The signing certificate''s identity, as a regular expression (unanchored, as cosign''s)'
            cand --certificate-oidc-issuer 'The OIDC issuer the certificate names (GitHub Actions: `https://token.actions.githubusercontent.com`; GitLab: `https://gitlab.com`)'
            cand --repository 'The git repository holding the commit `--rebuild` checks out (a clone of the provider''s repository); it is only read'
            cand --http-timeout 'The longest one HTTP request may take, from connecting to the last byte of the answer (`90s`, `10m`, `1h`)'
            cand --min-transfer-rate 'The slowest transfer accepted while a body moves, judged over 30-second windows (`1KiB`, `64KiB`, `1MiB` per second; `0` turns the check off)'
            cand --max-download 'The largest answer capkg reads from a server (a release file `verify` downloads, a read-back); a larger one is refused without being read (`256MiB`, `1GiB`)'
            cand --max-layers 'The most layers `verify oci://` reads from one artifact; a larger one is refused before any layer is read'
            cand --images-timeout 'The time all image lookups of one check share; images not looked up by then are reported as not checked (`30s`, `2m`)'
            cand --max-list-pages 'The most pages capkg reads of one list (a repository''s releases, a project''s packages, a registry''s tags); a longer list is an error. A list is also held to `--max-download` bytes in all'
            cand --format 'Output format'
            cand --color 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)'
            cand --require-provenance 'Fail unless the release has its provenance statement (`capkg-provenance.intoto.json`, which `capkg release` publishes) and every file it names is served with its digest. A statement is checked whenever there is one; this makes one required'
            cand --rebuild 'Assemble the release again from the commit its provenance statement names (checked out into a temporary folder from `--repository`) and compare every file byte for byte with what is served. Implies `--require-provenance`'
            cand -q 'Print only errors and the data asked for'
            cand --quiet 'Print only errors and the data asked for'
            cand -v 'Say more about what is happening (repeat for more)'
            cand --verbose 'Say more about what is happening (repeat for more)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'capkg;diff'= {
            cand --version 'The new release''s version (`v1.2.3`), where NEW does not say it (a folder such as `out/`)'
            cand --old-version 'The previous release''s version, where OLD does not say it'
            cand --api-url 'API base URL for github.com sources (GitHub Enterprise, a test server); default GITHUB_API_URL, else https://api.github.com'
            cand --provider 'Provider name (`aws`); default: from the `cluster.x-k8s.io/provider` labels'
            cand --type 'Provider type: `infrastructure`, `bootstrap`, `control-plane`, `core`, `ipam`, `runtime-extension`, `addon`, or clusterctl''s `InfrastructureProvider`…; default: from the components file name'
            cand --allow 'Accept an `upgrade/…` rule''s findings (repeatable): `--allow RULE=REASON`. Waived findings are still shown, with the reason; `lint: allow:` in capkg.yaml says the same'
            cand --config 'capkg''s configuration file, for its `lint: allow:` waivers; default: the nearest `capkg.yaml` up to the repository root, if there is one'
            cand --max-wait 'The longest capkg waits before a retry (`90s`, `10m`, `1h`)'
            cand --http-timeout 'The longest one HTTP request may take, from connecting to the last byte of the answer (`90s`, `10m`, `1h`)'
            cand --min-transfer-rate 'The slowest transfer accepted while a body moves, judged over 30-second windows (`1KiB`, `64KiB`, `1MiB` per second; `0` turns the check off)'
            cand --max-download 'The largest answer capkg reads from a server (a release file `verify` downloads, a read-back); a larger one is refused without being read (`256MiB`, `1GiB`)'
            cand --max-layers 'The most layers `verify oci://` reads from one artifact; a larger one is refused before any layer is read'
            cand --images-timeout 'The time all image lookups of one check share; images not looked up by then are reported as not checked (`30s`, `2m`)'
            cand --max-list-pages 'The most pages capkg reads of one list (a repository''s releases, a project''s packages, a registry''s tags); a longer list is an error. A list is also held to `--max-download` bytes in all'
            cand --format 'Output format'
            cand --color 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)'
            cand -q 'Print only errors and the data asked for'
            cand --quiet 'Print only errors and the data asked for'
            cand -v 'Say more about what is happening (repeat for more)'
            cand --verbose 'Say more about what is happening (repeat for more)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'capkg;configmaps'= {
            cand --version 'The release''s version (`v1.2.3`): the operator''s `spec.version` and the ConfigMap''s version label'
            cand -n 'The namespace of the provider''s custom resource, where the operator looks for its ConfigMaps (`capioperator preload`''s default); `""` writes none, so that `kubectl create -n NAMESPACE -f` chooses'
            cand --namespace 'The namespace of the provider''s custom resource, where the operator looks for its ConfigMaps (`capioperator preload`''s default); `""` writes none, so that `kubectl create -n NAMESPACE -f` chooses'
            cand -o 'Write the ConfigMaps to this file instead of stdout'
            cand --output 'Write the ConfigMaps to this file instead of stdout'
            cand --provider 'Provider name (`aws`); default: from the `cluster.x-k8s.io/provider` labels'
            cand --type 'Provider type: `infrastructure`, `bootstrap`, `control-plane`, `core`, `ipam`, `runtime-extension`, `addon`, or clusterctl''s `InfrastructureProvider`…; default: from the components file name'
            cand --format 'Output format'
            cand --color 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)'
            cand -q 'Print only errors and the data asked for'
            cand --quiet 'Print only errors and the data asked for'
            cand -v 'Say more about what is happening (repeat for more)'
            cand --verbose 'Say more about what is happening (repeat for more)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'capkg;completions'= {
            cand --format 'Output format'
            cand --color 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)'
            cand -q 'Print only errors and the data asked for'
            cand --quiet 'Print only errors and the data asked for'
            cand -v 'Say more about what is happening (repeat for more)'
            cand --verbose 'Say more about what is happening (repeat for more)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'capkg;help'= {
            cand lint 'Check release files against the clusterctl and provider contracts'
            cand rules 'List the lint rules, or explain one'
            cand subst 'Substitute variables as clusterctl does and print the result'
            cand vars 'List the variables files need, as `clusterctl generate cluster --list-variables` does'
            cand render 'Print what `clusterctl generate cluster` or `generate provider` would, from local files'
            cand assemble 'Build the release directory from `capkg.yaml` and the sources'
            cand init 'Scaffold `capkg.yaml` and CI files for a provider repository'
            cand publish 'Publish an assembled release directory'
            cand release 'Tag -> assemble -> lint -> publish -> verify, in one step for CI'
            cand promote 'Make public a release `capkg release --draft` left, once its images exist'
            cand verify 'Read a published release as clusterctl does and lint it'
            cand diff 'Compare two releases: what changed, and what of it breaks an upgrade (`upgrade/…` rules)'
            cand configmaps 'Print the ConfigMaps cluster-api-operator reads the release''s providers from'
            cand completions 'Print a shell completion script'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'capkg;help;lint'= {
        }
        &'capkg;help;rules'= {
        }
        &'capkg;help;subst'= {
        }
        &'capkg;help;vars'= {
        }
        &'capkg;help;render'= {
        }
        &'capkg;help;assemble'= {
        }
        &'capkg;help;init'= {
        }
        &'capkg;help;publish'= {
            cand local 'A local repository clusterctl reads as `file://…/{provider-label}/{version}/{file}`'
            cand github 'A GitHub release (token from GITHUB_TOKEN or GH_TOKEN)'
            cand gitlab 'A GitLab generic package (token from GITLAB_TOKEN, GITLAB_ACCESS_TOKEN or CI_JOB_TOKEN)'
            cand oci 'An OCI artifact cluster-api-operator reads (`spec.fetchConfig.oci`); login from OCI_USERNAME/OCI_PASSWORD, OCI_ACCESS_TOKEN or the Docker config file'
        }
        &'capkg;help;publish;local'= {
        }
        &'capkg;help;publish;github'= {
        }
        &'capkg;help;publish;gitlab'= {
        }
        &'capkg;help;publish;oci'= {
        }
        &'capkg;help;release'= {
        }
        &'capkg;help;promote'= {
        }
        &'capkg;help;verify'= {
        }
        &'capkg;help;diff'= {
        }
        &'capkg;help;configmaps'= {
        }
        &'capkg;help;completions'= {
        }
        &'capkg;help;help'= {
        }
    ]
    $completions[$command]
}
