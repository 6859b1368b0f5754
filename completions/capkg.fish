# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_capkg_global_optspecs
    string join \n format= color= q/quiet v/verbose h/help V/version
end

function __fish_capkg_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_capkg_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_capkg_using_subcommand
    set -l cmd (__fish_capkg_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c capkg -n "__fish_capkg_needs_command" -l format -d 'Output format' -r -f -a "human\t'Diagnostics with source snippets, for people'
json\t'One JSON object on stdout, for programs'
github\t'GitHub Actions annotations (`::error file=…::…`)'
markdown\t'Markdown for a pull request comment or release notes (`capkg diff`)'"
complete -c capkg -n "__fish_capkg_needs_command" -l color -d 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)' -r -f -a "auto\t'Colour when writing to a terminal and `NO_COLOR` is not set'
always\t''
never\t''"
complete -c capkg -n "__fish_capkg_needs_command" -s q -l quiet -d 'Print only errors and the data asked for'
complete -c capkg -n "__fish_capkg_needs_command" -s v -l verbose -d 'Say more about what is happening (repeat for more)'
complete -c capkg -n "__fish_capkg_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c capkg -n "__fish_capkg_needs_command" -s V -l version -d 'Print version'
complete -c capkg -n "__fish_capkg_needs_command" -f -a "lint" -d 'Check release files against the clusterctl and provider contracts'
complete -c capkg -n "__fish_capkg_needs_command" -f -a "rules" -d 'List the lint rules, or explain one'
complete -c capkg -n "__fish_capkg_needs_command" -f -a "subst" -d 'Substitute variables as clusterctl does and print the result'
complete -c capkg -n "__fish_capkg_needs_command" -f -a "vars" -d 'List the variables files need, as `clusterctl generate cluster --list-variables` does'
complete -c capkg -n "__fish_capkg_needs_command" -f -a "render" -d 'Print what `clusterctl generate cluster` or `generate provider` would, from local files'
complete -c capkg -n "__fish_capkg_needs_command" -f -a "assemble" -d 'Build the release directory from `capkg.yaml` and the sources'
complete -c capkg -n "__fish_capkg_needs_command" -f -a "init" -d 'Scaffold `capkg.yaml` and CI files for a provider repository'
complete -c capkg -n "__fish_capkg_needs_command" -f -a "publish" -d 'Publish an assembled release directory'
complete -c capkg -n "__fish_capkg_needs_command" -f -a "release" -d 'Tag -> assemble -> lint -> publish -> verify, in one step for CI'
complete -c capkg -n "__fish_capkg_needs_command" -f -a "promote" -d 'Make public a release `capkg release --draft` left, once its images exist'
complete -c capkg -n "__fish_capkg_needs_command" -f -a "verify" -d 'Read a published release as clusterctl does and lint it'
complete -c capkg -n "__fish_capkg_needs_command" -f -a "diff" -d 'Compare two releases: what changed, and what of it breaks an upgrade (`upgrade/…` rules)'
complete -c capkg -n "__fish_capkg_needs_command" -f -a "configmaps" -d 'Print the ConfigMaps cluster-api-operator reads the release\'s providers from'
complete -c capkg -n "__fish_capkg_needs_command" -f -a "completions" -d 'Print a shell completion script'
complete -c capkg -n "__fish_capkg_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c capkg -n "__fish_capkg_using_subcommand lint" -l version -d 'The version being released (`v1.2.3`): checks `metadata.yaml` covers it and images carry it' -r
complete -c capkg -n "__fish_capkg_using_subcommand lint" -l provider -d 'Provider name (`aws`); default: from the `cluster.x-k8s.io/provider` labels' -r
complete -c capkg -n "__fish_capkg_using_subcommand lint" -l type -d 'Provider type: `infrastructure`, `bootstrap`, `control-plane`, `core`, `ipam`, `runtime-extension`, `addon`, or clusterctl\'s `InfrastructureProvider`…; default: from the components file name' -r
complete -c capkg -n "__fish_capkg_using_subcommand lint" -l allow -d 'Accept a rule\'s findings (repeatable): `--allow RULE=REASON`, or `--allow RULE` (the reason then says it came from the command line). Waived findings are still shown, with the reason, and do not fail the run; `lint: allow:` in capkg.yaml says the same per file' -r
complete -c capkg -n "__fish_capkg_using_subcommand lint" -l config -d 'capkg\'s configuration file, for its `lint: allow:` waivers; default: the nearest `capkg.yaml` up to the repository root, if there is one' -r -F
complete -c capkg -n "__fish_capkg_using_subcommand lint" -l format -d 'Output format' -r -f -a "human\t'Diagnostics with source snippets, for people'
json\t'One JSON object on stdout, for programs'
github\t'GitHub Actions annotations (`::error file=…::…`)'
markdown\t'Markdown for a pull request comment or release notes (`capkg diff`)'"
complete -c capkg -n "__fish_capkg_using_subcommand lint" -l color -d 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)' -r -f -a "auto\t'Colour when writing to a terminal and `NO_COLOR` is not set'
always\t''
never\t''"
complete -c capkg -n "__fish_capkg_using_subcommand lint" -l all -d 'Lint every YAML file under the current folder, not the release capkg.yaml describes'
complete -c capkg -n "__fish_capkg_using_subcommand lint" -l deny-warnings -d 'Exit 1 on warnings too'
complete -c capkg -n "__fish_capkg_using_subcommand lint" -s q -l quiet -d 'Print only errors and the data asked for'
complete -c capkg -n "__fish_capkg_using_subcommand lint" -s v -l verbose -d 'Say more about what is happening (repeat for more)'
complete -c capkg -n "__fish_capkg_using_subcommand lint" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c capkg -n "__fish_capkg_using_subcommand rules" -l format -d 'Output format' -r -f -a "human\t'Diagnostics with source snippets, for people'
json\t'One JSON object on stdout, for programs'
github\t'GitHub Actions annotations (`::error file=…::…`)'
markdown\t'Markdown for a pull request comment or release notes (`capkg diff`)'"
complete -c capkg -n "__fish_capkg_using_subcommand rules" -l color -d 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)' -r -f -a "auto\t'Colour when writing to a terminal and `NO_COLOR` is not set'
always\t''
never\t''"
complete -c capkg -n "__fish_capkg_using_subcommand rules" -s q -l quiet -d 'Print only errors and the data asked for'
complete -c capkg -n "__fish_capkg_using_subcommand rules" -s v -l verbose -d 'Say more about what is happening (repeat for more)'
complete -c capkg -n "__fish_capkg_using_subcommand rules" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c capkg -n "__fish_capkg_using_subcommand subst" -l var -d 'Set a variable (repeatable); wins over the environment and the clusterctl config file' -r
complete -c capkg -n "__fish_capkg_using_subcommand subst" -l clusterctl-config -d 'A clusterctl configuration file whose top-level keys are variables; default: clusterctl\'s own (`$XDG_CONFIG_HOME/cluster-api/clusterctl.yaml`, then `~/.cluster-api/clusterctl.yaml`) when it exists' -r -F
complete -c capkg -n "__fish_capkg_using_subcommand subst" -l format -d 'Output format' -r -f -a "human\t'Diagnostics with source snippets, for people'
json\t'One JSON object on stdout, for programs'
github\t'GitHub Actions annotations (`::error file=…::…`)'
markdown\t'Markdown for a pull request comment or release notes (`capkg diff`)'"
complete -c capkg -n "__fish_capkg_using_subcommand subst" -l color -d 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)' -r -f -a "auto\t'Colour when writing to a terminal and `NO_COLOR` is not set'
always\t''
never\t''"
complete -c capkg -n "__fish_capkg_using_subcommand subst" -l plain -d 'Exactly drone/envsubst\'s `Eval`: no `${ VAR }` pre-pass, no missing-variable check, names looked up as written in the environment and `--var`, unset variables empty'
complete -c capkg -n "__fish_capkg_using_subcommand subst" -s q -l quiet -d 'Print only errors and the data asked for'
complete -c capkg -n "__fish_capkg_using_subcommand subst" -s v -l verbose -d 'Say more about what is happening (repeat for more)'
complete -c capkg -n "__fish_capkg_using_subcommand subst" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c capkg -n "__fish_capkg_using_subcommand vars" -l format -d 'Output format' -r -f -a "human\t'Diagnostics with source snippets, for people'
json\t'One JSON object on stdout, for programs'
github\t'GitHub Actions annotations (`::error file=…::…`)'
markdown\t'Markdown for a pull request comment or release notes (`capkg diff`)'"
complete -c capkg -n "__fish_capkg_using_subcommand vars" -l color -d 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)' -r -f -a "auto\t'Colour when writing to a terminal and `NO_COLOR` is not set'
always\t''
never\t''"
complete -c capkg -n "__fish_capkg_using_subcommand vars" -s q -l quiet -d 'Print only errors and the data asked for'
complete -c capkg -n "__fish_capkg_using_subcommand vars" -s v -l verbose -d 'Say more about what is happening (repeat for more)'
complete -c capkg -n "__fish_capkg_using_subcommand vars" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c capkg -n "__fish_capkg_using_subcommand render" -l cluster-name -d 'The cluster\'s name (`CLUSTER_NAME`); required for templates' -r
complete -c capkg -n "__fish_capkg_using_subcommand render" -l flavor -d 'Pick `cluster-template-FLAVOR.yaml` from a provider folder' -r
complete -c capkg -n "__fish_capkg_using_subcommand render" -s n -l target-namespace -d 'The namespace every object goes into (`NAMESPACE`); templates default to `default`, components to their Namespace object' -r
complete -c capkg -n "__fish_capkg_using_subcommand render" -l kubernetes-version -d '`KUBERNETES_VERSION`' -r
complete -c capkg -n "__fish_capkg_using_subcommand render" -l control-plane-machine-count -d '`CONTROL_PLANE_MACHINE_COUNT` (default 1)' -r
complete -c capkg -n "__fish_capkg_using_subcommand render" -l worker-machine-count -d '`WORKER_MACHINE_COUNT` (default 0)' -r
complete -c capkg -n "__fish_capkg_using_subcommand render" -l var -d 'Set a variable (repeatable); wins over the environment and the clusterctl config file' -r
complete -c capkg -n "__fish_capkg_using_subcommand render" -l clusterctl-config -d 'A clusterctl configuration file whose top-level keys are variables; default: clusterctl\'s own (`$XDG_CONFIG_HOME/cluster-api/clusterctl.yaml`, then `~/.cluster-api/clusterctl.yaml`) when it exists' -r -F
complete -c capkg -n "__fish_capkg_using_subcommand render" -l provider -d 'Provider name (`aws`); default: from the `cluster.x-k8s.io/provider` labels' -r
complete -c capkg -n "__fish_capkg_using_subcommand render" -l type -d 'Provider type: `infrastructure`, `bootstrap`, `control-plane`, `core`, `ipam`, `runtime-extension`, `addon`, or clusterctl\'s `InfrastructureProvider`…; default: from the components file name' -r
complete -c capkg -n "__fish_capkg_using_subcommand render" -l format -d 'Output format' -r -f -a "human\t'Diagnostics with source snippets, for people'
json\t'One JSON object on stdout, for programs'
github\t'GitHub Actions annotations (`::error file=…::…`)'
markdown\t'Markdown for a pull request comment or release notes (`capkg diff`)'"
complete -c capkg -n "__fish_capkg_using_subcommand render" -l color -d 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)' -r -f -a "auto\t'Colour when writing to a terminal and `NO_COLOR` is not set'
always\t''
never\t''"
complete -c capkg -n "__fish_capkg_using_subcommand render" -l list-variables -d 'Print the variables the template needs instead of rendering it'
complete -c capkg -n "__fish_capkg_using_subcommand render" -l raw -d 'Components only: do not substitute variables (`clusterctl generate provider --raw`)'
complete -c capkg -n "__fish_capkg_using_subcommand render" -s q -l quiet -d 'Print only errors and the data asked for'
complete -c capkg -n "__fish_capkg_using_subcommand render" -s v -l verbose -d 'Say more about what is happening (repeat for more)'
complete -c capkg -n "__fish_capkg_using_subcommand render" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c capkg -n "__fish_capkg_using_subcommand assemble" -l config -d 'capkg\'s configuration file; default: `capkg.yaml` at the repository root' -r -F
complete -c capkg -n "__fish_capkg_using_subcommand assemble" -l version -d 'The version being released (`v1.2.3`); default: the CI tag (`GITHUB_REF_NAME` on a tag push, `CI_COMMIT_TAG`), else `version:` in capkg.yaml (the order `release` follows)' -r
complete -c capkg -n "__fish_capkg_using_subcommand assemble" -l out -d 'Where to write the release (default `out/`, or `output:` in capkg.yaml)' -r -F
complete -c capkg -n "__fish_capkg_using_subcommand assemble" -l provider -d 'Provider name (`aws`); default: from the `cluster.x-k8s.io/provider` labels' -r
complete -c capkg -n "__fish_capkg_using_subcommand assemble" -l type -d 'Provider type: `infrastructure`, `bootstrap`, `control-plane`, `core`, `ipam`, `runtime-extension`, `addon`, or clusterctl\'s `InfrastructureProvider`…; default: from the components file name' -r
complete -c capkg -n "__fish_capkg_using_subcommand assemble" -l components -d 'Components from files or folders of manifests, concatenated (repeatable; replaces `components:`)' -r -F
complete -c capkg -n "__fish_capkg_using_subcommand assemble" -l components-command -d 'Components from a command\'s standard output, run with `sh -c` in the configuration\'s folder (replaces `components:`)' -r
complete -c capkg -n "__fish_capkg_using_subcommand assemble" -l metadata -d '`metadata.yaml` of the release (replaces `metadata:`)' -r -F
complete -c capkg -n "__fish_capkg_using_subcommand assemble" -l templates -d 'Globs for cluster templates and ClusterClass files (repeatable; replaces `templates:`)' -r
complete -c capkg -n "__fish_capkg_using_subcommand assemble" -l namespace -d 'The namespace the components install into (replaces `namespace:`)' -r
complete -c capkg -n "__fish_capkg_using_subcommand assemble" -l format -d 'Output format' -r -f -a "human\t'Diagnostics with source snippets, for people'
json\t'One JSON object on stdout, for programs'
github\t'GitHub Actions annotations (`::error file=…::…`)'
markdown\t'Markdown for a pull request comment or release notes (`capkg diff`)'"
complete -c capkg -n "__fish_capkg_using_subcommand assemble" -l color -d 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)' -r -f -a "auto\t'Colour when writing to a terminal and `NO_COLOR` is not set'
always\t''
never\t''"
complete -c capkg -n "__fish_capkg_using_subcommand assemble" -s q -l quiet -d 'Print only errors and the data asked for'
complete -c capkg -n "__fish_capkg_using_subcommand assemble" -s v -l verbose -d 'Say more about what is happening (repeat for more)'
complete -c capkg -n "__fish_capkg_using_subcommand assemble" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c capkg -n "__fish_capkg_using_subcommand init" -l provider -d 'Provider name (`aws`); default: from the `cluster.x-k8s.io/provider` labels' -r
complete -c capkg -n "__fish_capkg_using_subcommand init" -l type -d 'Provider type: `infrastructure`, `bootstrap`, `control-plane`, `core`, `ipam`, `runtime-extension`, `addon`, or clusterctl\'s `InfrastructureProvider`…; default: from the components file name' -r
complete -c capkg -n "__fish_capkg_using_subcommand init" -l format -d 'Output format' -r -f -a "human\t'Diagnostics with source snippets, for people'
json\t'One JSON object on stdout, for programs'
github\t'GitHub Actions annotations (`::error file=…::…`)'
markdown\t'Markdown for a pull request comment or release notes (`capkg diff`)'"
complete -c capkg -n "__fish_capkg_using_subcommand init" -l color -d 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)' -r -f -a "auto\t'Colour when writing to a terminal and `NO_COLOR` is not set'
always\t''
never\t''"
complete -c capkg -n "__fish_capkg_using_subcommand init" -l force -d 'Overwrite files that already exist'
complete -c capkg -n "__fish_capkg_using_subcommand init" -s q -l quiet -d 'Print only errors and the data asked for'
complete -c capkg -n "__fish_capkg_using_subcommand init" -s v -l verbose -d 'Say more about what is happening (repeat for more)'
complete -c capkg -n "__fish_capkg_using_subcommand init" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c capkg -n "__fish_capkg_using_subcommand publish; and not __fish_seen_subcommand_from local github gitlab oci help" -l format -d 'Output format' -r -f -a "human\t'Diagnostics with source snippets, for people'
json\t'One JSON object on stdout, for programs'
github\t'GitHub Actions annotations (`::error file=…::…`)'
markdown\t'Markdown for a pull request comment or release notes (`capkg diff`)'"
complete -c capkg -n "__fish_capkg_using_subcommand publish; and not __fish_seen_subcommand_from local github gitlab oci help" -l color -d 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)' -r -f -a "auto\t'Colour when writing to a terminal and `NO_COLOR` is not set'
always\t''
never\t''"
complete -c capkg -n "__fish_capkg_using_subcommand publish; and not __fish_seen_subcommand_from local github gitlab oci help" -s q -l quiet -d 'Print only errors and the data asked for'
complete -c capkg -n "__fish_capkg_using_subcommand publish; and not __fish_seen_subcommand_from local github gitlab oci help" -s v -l verbose -d 'Say more about what is happening (repeat for more)'
complete -c capkg -n "__fish_capkg_using_subcommand publish; and not __fish_seen_subcommand_from local github gitlab oci help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c capkg -n "__fish_capkg_using_subcommand publish; and not __fish_seen_subcommand_from local github gitlab oci help" -f -a "local" -d 'A local repository clusterctl reads as `file://…/{provider-label}/{version}/{file}`'
complete -c capkg -n "__fish_capkg_using_subcommand publish; and not __fish_seen_subcommand_from local github gitlab oci help" -f -a "github" -d 'A GitHub release (token from GITHUB_TOKEN or GH_TOKEN)'
complete -c capkg -n "__fish_capkg_using_subcommand publish; and not __fish_seen_subcommand_from local github gitlab oci help" -f -a "gitlab" -d 'A GitLab generic package (token from GITLAB_TOKEN, GITLAB_ACCESS_TOKEN or CI_JOB_TOKEN)'
complete -c capkg -n "__fish_capkg_using_subcommand publish; and not __fish_seen_subcommand_from local github gitlab oci help" -f -a "oci" -d 'An OCI artifact cluster-api-operator reads (`spec.fetchConfig.oci`); login from OCI_USERNAME/OCI_PASSWORD, OCI_ACCESS_TOKEN or the Docker config file'
complete -c capkg -n "__fish_capkg_using_subcommand publish; and not __fish_seen_subcommand_from local github gitlab oci help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from local" -l version -d 'The version being published (`v1.2.3`)' -r
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from local" -l provider -d 'Provider name (`aws`); default: from the `cluster.x-k8s.io/provider` labels' -r
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from local" -l type -d 'Provider type: `infrastructure`, `bootstrap`, `control-plane`, `core`, `ipam`, `runtime-extension`, `addon`, or clusterctl\'s `InfrastructureProvider`…; default: from the components file name' -r
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from local" -l repository -d 'The repository\'s base folder' -r -F
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from local" -l overrides -d 'Also print the overrides layout clusterctl reads from this folder' -r -F
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from local" -l format -d 'Output format' -r -f -a "human\t'Diagnostics with source snippets, for people'
json\t'One JSON object on stdout, for programs'
github\t'GitHub Actions annotations (`::error file=…::…`)'
markdown\t'Markdown for a pull request comment or release notes (`capkg diff`)'"
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from local" -l color -d 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)' -r -f -a "auto\t'Colour when writing to a terminal and `NO_COLOR` is not set'
always\t''
never\t''"
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from local" -l dry-run -d 'Print the plan and touch nothing'
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from local" -l force -d 'Replace an existing, different version folder'
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from local" -s q -l quiet -d 'Print only errors and the data asked for'
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from local" -s v -l verbose -d 'Say more about what is happening (repeat for more)'
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from local" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from github" -l version -d 'The version being published (`v1.2.3`)' -r
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from github" -l provider -d 'Provider name (`aws`); default: from the `cluster.x-k8s.io/provider` labels' -r
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from github" -l type -d 'Provider type: `infrastructure`, `bootstrap`, `control-plane`, `core`, `ipam`, `runtime-extension`, `addon`, or clusterctl\'s `InfrastructureProvider`…; default: from the components file name' -r
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from github" -l repo -d 'The repository, `OWNER/NAME`' -r
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from github" -l api-url -d 'API base URL; default GITHUB_API_URL, else https://api.github.com' -r
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from github" -l max-wait -d 'The longest capkg waits before a retry; a server that asks for more (a rate limit that resets in an hour) makes publish fail at once, saying how long it asked for (`90s`, `10m`, `1h`)' -r
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from github" -l retries -d 'Tries per request for failures worth retrying (5xx, cut connections, rate limits)' -r
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from github" -l http-timeout -d 'The longest one HTTP request may take, from connecting to the last byte of the answer (`90s`, `10m`, `1h`)' -r
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from github" -l min-transfer-rate -d 'The slowest transfer accepted while a body moves, judged over 30-second windows (`1KiB`, `64KiB`, `1MiB` per second; `0` turns the check off)' -r
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from github" -l max-download -d 'The largest answer capkg reads from a server (a release file `verify` downloads, a read-back); a larger one is refused without being read (`256MiB`, `1GiB`)' -r
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from github" -l format -d 'Output format' -r -f -a "human\t'Diagnostics with source snippets, for people'
json\t'One JSON object on stdout, for programs'
github\t'GitHub Actions annotations (`::error file=…::…`)'
markdown\t'Markdown for a pull request comment or release notes (`capkg diff`)'"
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from github" -l color -d 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)' -r -f -a "auto\t'Colour when writing to a terminal and `NO_COLOR` is not set'
always\t''
never\t''"
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from github" -l dry-run -d 'Print the plan and touch nothing'
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from github" -l clobber -d 'Replace assets whose content differs'
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from github" -l draft -d 'Leave the release as a draft'
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from github" -l prerelease -d 'Mark the release as a pre-release (automatic for semver pre-releases)'
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from github" -s q -l quiet -d 'Print only errors and the data asked for'
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from github" -s v -l verbose -d 'Say more about what is happening (repeat for more)'
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from github" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from gitlab" -l version -d 'The version being published (`v1.2.3`)' -r
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from gitlab" -l provider -d 'Provider name (`aws`); default: from the `cluster.x-k8s.io/provider` labels' -r
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from gitlab" -l type -d 'Provider type: `infrastructure`, `bootstrap`, `control-plane`, `core`, `ipam`, `runtime-extension`, `addon`, or clusterctl\'s `InfrastructureProvider`…; default: from the components file name' -r
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from gitlab" -l project -d 'Project id or path; default CI_PROJECT_ID' -r
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from gitlab" -l package -d 'Package name (default: the provider label)' -r
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from gitlab" -l api-url -d 'API base URL; default CI_API_V4_URL' -r
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from gitlab" -l max-wait -d 'The longest capkg waits before a retry; a server that asks for more (a rate limit that resets in an hour) makes publish fail at once, saying how long it asked for (`90s`, `10m`, `1h`)' -r
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from gitlab" -l retries -d 'Tries per request for failures worth retrying (5xx, cut connections, rate limits)' -r
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from gitlab" -l http-timeout -d 'The longest one HTTP request may take, from connecting to the last byte of the answer (`90s`, `10m`, `1h`)' -r
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from gitlab" -l min-transfer-rate -d 'The slowest transfer accepted while a body moves, judged over 30-second windows (`1KiB`, `64KiB`, `1MiB` per second; `0` turns the check off)' -r
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from gitlab" -l max-download -d 'The largest answer capkg reads from a server (a release file `verify` downloads, a read-back); a larger one is refused without being read (`256MiB`, `1GiB`)' -r
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from gitlab" -l format -d 'Output format' -r -f -a "human\t'Diagnostics with source snippets, for people'
json\t'One JSON object on stdout, for programs'
github\t'GitHub Actions annotations (`::error file=…::…`)'
markdown\t'Markdown for a pull request comment or release notes (`capkg diff`)'"
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from gitlab" -l color -d 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)' -r -f -a "auto\t'Colour when writing to a terminal and `NO_COLOR` is not set'
always\t''
never\t''"
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from gitlab" -l dry-run -d 'Print the plan and touch nothing'
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from gitlab" -l clobber -d 'Upload files whose content differs from the one already in the package (GitLab then serves the new one)'
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from gitlab" -s q -l quiet -d 'Print only errors and the data asked for'
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from gitlab" -s v -l verbose -d 'Say more about what is happening (repeat for more)'
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from gitlab" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from oci" -l version -d 'The version being published (`v1.2.3`)' -r
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from oci" -l provider -d 'Provider name (`aws`); default: from the `cluster.x-k8s.io/provider` labels' -r
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from oci" -l type -d 'Provider type: `infrastructure`, `bootstrap`, `control-plane`, `core`, `ipam`, `runtime-extension`, `addon`, or clusterctl\'s `InfrastructureProvider`…; default: from the components file name' -r
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from oci" -l repository -d 'The repository, `[http://]HOST[:PORT]/PATH[:TAG]` (`http://` only for loopback)' -r
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from oci" -l tag -d 'The tag when REF has none; `{version}` is replaced (default `{version}`)' -r
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from oci" -l max-wait -d 'The longest capkg waits before a retry; a server that asks for more (a rate limit that resets in an hour) makes publish fail at once, saying how long it asked for (`90s`, `10m`, `1h`)' -r
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from oci" -l retries -d 'Tries per request for failures worth retrying (5xx, cut connections, rate limits)' -r
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from oci" -l http-timeout -d 'The longest one HTTP request may take, from connecting to the last byte of the answer (`90s`, `10m`, `1h`)' -r
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from oci" -l min-transfer-rate -d 'The slowest transfer accepted while a body moves, judged over 30-second windows (`1KiB`, `64KiB`, `1MiB` per second; `0` turns the check off)' -r
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from oci" -l max-download -d 'The largest answer capkg reads from a server (a release file `verify` downloads, a read-back); a larger one is refused without being read (`256MiB`, `1GiB`)' -r
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from oci" -l format -d 'Output format' -r -f -a "human\t'Diagnostics with source snippets, for people'
json\t'One JSON object on stdout, for programs'
github\t'GitHub Actions annotations (`::error file=…::…`)'
markdown\t'Markdown for a pull request comment or release notes (`capkg diff`)'"
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from oci" -l color -d 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)' -r -f -a "auto\t'Colour when writing to a terminal and `NO_COLOR` is not set'
always\t''
never\t''"
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from oci" -l dry-run -d 'Print the plan and touch nothing'
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from oci" -l force -d 'Move the tag when it points at a different artifact'
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from oci" -s q -l quiet -d 'Print only errors and the data asked for'
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from oci" -s v -l verbose -d 'Say more about what is happening (repeat for more)'
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from oci" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from help" -f -a "local" -d 'A local repository clusterctl reads as `file://…/{provider-label}/{version}/{file}`'
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from help" -f -a "github" -d 'A GitHub release (token from GITHUB_TOKEN or GH_TOKEN)'
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from help" -f -a "gitlab" -d 'A GitLab generic package (token from GITLAB_TOKEN, GITLAB_ACCESS_TOKEN or CI_JOB_TOKEN)'
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from help" -f -a "oci" -d 'An OCI artifact cluster-api-operator reads (`spec.fetchConfig.oci`); login from OCI_USERNAME/OCI_PASSWORD, OCI_ACCESS_TOKEN or the Docker config file'
complete -c capkg -n "__fish_capkg_using_subcommand publish; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c capkg -n "__fish_capkg_using_subcommand release" -l config -d 'capkg\'s configuration file; default: `capkg.yaml` at the repository root' -r -F
complete -c capkg -n "__fish_capkg_using_subcommand release" -l version -d 'The version to release; default: the CI tag (`GITHUB_REF_NAME` on a tag push, `CI_COMMIT_TAG`), else `version:` in capkg.yaml (the order `assemble` follows)' -r
complete -c capkg -n "__fish_capkg_using_subcommand release" -l target -d 'Publish only to these targets of the configuration (repeatable)' -r -f -a "github\t''
gitlab\t''
local\t''
oci\t''"
complete -c capkg -n "__fish_capkg_using_subcommand release" -l wait-for-images -d 'When images the components name are not in their registry yet (an image build running beside the release), look again with backoff for up to this long (`90s`, `15m`) before refusing; default: look once' -r
complete -c capkg -n "__fish_capkg_using_subcommand release" -l provider -d 'Provider name (`aws`); default: from the `cluster.x-k8s.io/provider` labels' -r
complete -c capkg -n "__fish_capkg_using_subcommand release" -l type -d 'Provider type: `infrastructure`, `bootstrap`, `control-plane`, `core`, `ipam`, `runtime-extension`, `addon`, or clusterctl\'s `InfrastructureProvider`…; default: from the components file name' -r
complete -c capkg -n "__fish_capkg_using_subcommand release" -l http-timeout -d 'The longest one HTTP request may take, from connecting to the last byte of the answer (`90s`, `10m`, `1h`)' -r
complete -c capkg -n "__fish_capkg_using_subcommand release" -l min-transfer-rate -d 'The slowest transfer accepted while a body moves, judged over 30-second windows (`1KiB`, `64KiB`, `1MiB` per second; `0` turns the check off)' -r
complete -c capkg -n "__fish_capkg_using_subcommand release" -l max-download -d 'The largest answer capkg reads from a server (a release file `verify` downloads, a read-back); a larger one is refused without being read (`256MiB`, `1GiB`)' -r
complete -c capkg -n "__fish_capkg_using_subcommand release" -l max-layers -d 'The most layers `verify oci://` reads from one artifact; a larger one is refused before any layer is read' -r
complete -c capkg -n "__fish_capkg_using_subcommand release" -l images-timeout -d 'The time all image lookups of one check share; images not looked up by then are reported as not checked (`30s`, `2m`)' -r
complete -c capkg -n "__fish_capkg_using_subcommand release" -l max-list-pages -d 'The most pages capkg reads of one list (a repository\'s releases, a project\'s packages, a registry\'s tags); a longer list is an error. A list is also held to `--max-download` bytes in all' -r
complete -c capkg -n "__fish_capkg_using_subcommand release" -l previous -d 'The release to compare with before publishing (`capkg diff`): a version looked up at each target (`v1.2.2`), a source `capkg verify` reads, or `none`; default: capkg.yaml `previous:`, else the newest version older than this one at each target' -r
complete -c capkg -n "__fish_capkg_using_subcommand release" -l format -d 'Output format' -r -f -a "human\t'Diagnostics with source snippets, for people'
json\t'One JSON object on stdout, for programs'
github\t'GitHub Actions annotations (`::error file=…::…`)'
markdown\t'Markdown for a pull request comment or release notes (`capkg diff`)'"
complete -c capkg -n "__fish_capkg_using_subcommand release" -l color -d 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)' -r -f -a "auto\t'Colour when writing to a terminal and `NO_COLOR` is not set'
always\t''
never\t''"
complete -c capkg -n "__fish_capkg_using_subcommand release" -l dry-run -d 'Print the plan and touch nothing: no network access, nothing written (the upgrade check runs where the previous release is on this machine)'
complete -c capkg -n "__fish_capkg_using_subcommand release" -l draft -d 'Publish where nobody installs from it yet and stop: a GitHub draft release; the local folder, OCI tag and GitLab package version `draft-VERSION`. The images are not looked up; `capkg promote` does that, makes the draft public and verifies it'
complete -c capkg -n "__fish_capkg_using_subcommand release" -l allow-untagged-head -d 'Release the sources where capkg.yaml is although their HEAD is not tagged with the version (`--version` or `version:`; a CI tag push is never checked). Without it a release refuses such sources and a dry run warns'
complete -c capkg -n "__fish_capkg_using_subcommand release" -s q -l quiet -d 'Print only errors and the data asked for'
complete -c capkg -n "__fish_capkg_using_subcommand release" -s v -l verbose -d 'Say more about what is happening (repeat for more)'
complete -c capkg -n "__fish_capkg_using_subcommand release" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c capkg -n "__fish_capkg_using_subcommand promote" -l config -d 'capkg\'s configuration file; default: `capkg.yaml` at the repository root' -r -F
complete -c capkg -n "__fish_capkg_using_subcommand promote" -l version -d 'The version to release; default: the CI tag (`GITHUB_REF_NAME` on a tag push, `CI_COMMIT_TAG`), else `version:` in capkg.yaml (the order `assemble` follows)' -r
complete -c capkg -n "__fish_capkg_using_subcommand promote" -l target -d 'Publish only to these targets of the configuration (repeatable)' -r -f -a "github\t''
gitlab\t''
local\t''
oci\t''"
complete -c capkg -n "__fish_capkg_using_subcommand promote" -l wait-for-images -d 'When images the components name are not in their registry yet (an image build running beside the release), look again with backoff for up to this long (`90s`, `15m`) before refusing; default: look once' -r
complete -c capkg -n "__fish_capkg_using_subcommand promote" -l provider -d 'Provider name (`aws`); default: from the `cluster.x-k8s.io/provider` labels' -r
complete -c capkg -n "__fish_capkg_using_subcommand promote" -l type -d 'Provider type: `infrastructure`, `bootstrap`, `control-plane`, `core`, `ipam`, `runtime-extension`, `addon`, or clusterctl\'s `InfrastructureProvider`…; default: from the components file name' -r
complete -c capkg -n "__fish_capkg_using_subcommand promote" -l http-timeout -d 'The longest one HTTP request may take, from connecting to the last byte of the answer (`90s`, `10m`, `1h`)' -r
complete -c capkg -n "__fish_capkg_using_subcommand promote" -l min-transfer-rate -d 'The slowest transfer accepted while a body moves, judged over 30-second windows (`1KiB`, `64KiB`, `1MiB` per second; `0` turns the check off)' -r
complete -c capkg -n "__fish_capkg_using_subcommand promote" -l max-download -d 'The largest answer capkg reads from a server (a release file `verify` downloads, a read-back); a larger one is refused without being read (`256MiB`, `1GiB`)' -r
complete -c capkg -n "__fish_capkg_using_subcommand promote" -l max-layers -d 'The most layers `verify oci://` reads from one artifact; a larger one is refused before any layer is read' -r
complete -c capkg -n "__fish_capkg_using_subcommand promote" -l images-timeout -d 'The time all image lookups of one check share; images not looked up by then are reported as not checked (`30s`, `2m`)' -r
complete -c capkg -n "__fish_capkg_using_subcommand promote" -l max-list-pages -d 'The most pages capkg reads of one list (a repository\'s releases, a project\'s packages, a registry\'s tags); a longer list is an error. A list is also held to `--max-download` bytes in all' -r
complete -c capkg -n "__fish_capkg_using_subcommand promote" -l format -d 'Output format' -r -f -a "human\t'Diagnostics with source snippets, for people'
json\t'One JSON object on stdout, for programs'
github\t'GitHub Actions annotations (`::error file=…::…`)'
markdown\t'Markdown for a pull request comment or release notes (`capkg diff`)'"
complete -c capkg -n "__fish_capkg_using_subcommand promote" -l color -d 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)' -r -f -a "auto\t'Colour when writing to a terminal and `NO_COLOR` is not set'
always\t''
never\t''"
complete -c capkg -n "__fish_capkg_using_subcommand promote" -s q -l quiet -d 'Print only errors and the data asked for'
complete -c capkg -n "__fish_capkg_using_subcommand promote" -s v -l verbose -d 'Say more about what is happening (repeat for more)'
complete -c capkg -n "__fish_capkg_using_subcommand promote" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c capkg -n "__fish_capkg_using_subcommand verify" -l api-url -d 'API base URL (GitHub Enterprise, a test server); default GITHUB_API_URL, else https://api.github.com. The SOURCE keeps its github.com form: `https://github.com/O/R/ releases/TAG/FILE` is read as `{api}/repos/O/R/releases/tags/TAG` and its assets' -r
complete -c capkg -n "__fish_capkg_using_subcommand verify" -l version -d 'For `oci://REF`: the provider\'s `spec.version`, which names the layers the operator reads (default: the tag in REF). For a folder outside the `{label}/{version}/` layout (`out/`): the version being released, checked as `lint --version` does' -r
complete -c capkg -n "__fish_capkg_using_subcommand verify" -l provider -d 'Provider name (`aws`); default: from the `cluster.x-k8s.io/provider` labels' -r
complete -c capkg -n "__fish_capkg_using_subcommand verify" -l type -d 'Provider type: `infrastructure`, `bootstrap`, `control-plane`, `core`, `ipam`, `runtime-extension`, `addon`, or clusterctl\'s `InfrastructureProvider`…; default: from the components file name' -r
complete -c capkg -n "__fish_capkg_using_subcommand verify" -l config -d 'capkg\'s configuration file, for its `lint: allow:` waivers; default: the nearest `capkg.yaml` up to the repository root, if there is one' -r -F
complete -c capkg -n "__fish_capkg_using_subcommand verify" -l max-wait -d 'The longest capkg waits before a retry, as for `publish`: a GitHub rate limit that resets later fails at once with clusterctl\'s rate-limit message (`90s`, `10m`, `1h`)' -r
complete -c capkg -n "__fish_capkg_using_subcommand verify" -l trusted-root -d 'Check the provenance statement\'s signature (`capkg-provenance.sigstore.json`, a Sigstore bundle) against this Sigstore trusted root (`trusted_root.json`: the Fulcio CAs and Rekor keys); the signature is then required. Implies `--require-provenance`' -r -F
complete -c capkg -n "__fish_capkg_using_subcommand verify" -l certificate-identity -d 'The signing certificate\'s identity, exactly (its SAN: for GitHub Actions `https://github.com/O/R/.github/workflows/release.yml@refs/tags/v1.2.3`)' -r
complete -c capkg -n "__fish_capkg_using_subcommand verify" -l certificate-identity-regexp -d 'The signing certificate\'s identity, as a regular expression (unanchored, as cosign\'s)' -r
complete -c capkg -n "__fish_capkg_using_subcommand verify" -l certificate-oidc-issuer -d 'The OIDC issuer the certificate names (GitHub Actions: `https://token.actions.githubusercontent.com`; GitLab: `https://gitlab.com`)' -r
complete -c capkg -n "__fish_capkg_using_subcommand verify" -l repository -d 'The git repository holding the commit `--rebuild` checks out (a clone of the provider\'s repository); it is only read' -r -F
complete -c capkg -n "__fish_capkg_using_subcommand verify" -l http-timeout -d 'The longest one HTTP request may take, from connecting to the last byte of the answer (`90s`, `10m`, `1h`)' -r
complete -c capkg -n "__fish_capkg_using_subcommand verify" -l min-transfer-rate -d 'The slowest transfer accepted while a body moves, judged over 30-second windows (`1KiB`, `64KiB`, `1MiB` per second; `0` turns the check off)' -r
complete -c capkg -n "__fish_capkg_using_subcommand verify" -l max-download -d 'The largest answer capkg reads from a server (a release file `verify` downloads, a read-back); a larger one is refused without being read (`256MiB`, `1GiB`)' -r
complete -c capkg -n "__fish_capkg_using_subcommand verify" -l max-layers -d 'The most layers `verify oci://` reads from one artifact; a larger one is refused before any layer is read' -r
complete -c capkg -n "__fish_capkg_using_subcommand verify" -l images-timeout -d 'The time all image lookups of one check share; images not looked up by then are reported as not checked (`30s`, `2m`)' -r
complete -c capkg -n "__fish_capkg_using_subcommand verify" -l max-list-pages -d 'The most pages capkg reads of one list (a repository\'s releases, a project\'s packages, a registry\'s tags); a longer list is an error. A list is also held to `--max-download` bytes in all' -r
complete -c capkg -n "__fish_capkg_using_subcommand verify" -l format -d 'Output format' -r -f -a "human\t'Diagnostics with source snippets, for people'
json\t'One JSON object on stdout, for programs'
github\t'GitHub Actions annotations (`::error file=…::…`)'
markdown\t'Markdown for a pull request comment or release notes (`capkg diff`)'"
complete -c capkg -n "__fish_capkg_using_subcommand verify" -l color -d 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)' -r -f -a "auto\t'Colour when writing to a terminal and `NO_COLOR` is not set'
always\t''
never\t''"
complete -c capkg -n "__fish_capkg_using_subcommand verify" -l require-provenance -d 'Fail unless the release has its provenance statement (`capkg-provenance.intoto.json`, which `capkg release` publishes) and every file it names is served with its digest. A statement is checked whenever there is one; this makes one required'
complete -c capkg -n "__fish_capkg_using_subcommand verify" -l rebuild -d 'Assemble the release again from the commit its provenance statement names (checked out into a temporary folder from `--repository`) and compare every file byte for byte with what is served. Implies `--require-provenance`'
complete -c capkg -n "__fish_capkg_using_subcommand verify" -s q -l quiet -d 'Print only errors and the data asked for'
complete -c capkg -n "__fish_capkg_using_subcommand verify" -s v -l verbose -d 'Say more about what is happening (repeat for more)'
complete -c capkg -n "__fish_capkg_using_subcommand verify" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c capkg -n "__fish_capkg_using_subcommand diff" -l version -d 'The new release\'s version (`v1.2.3`), where NEW does not say it (a folder such as `out/`)' -r
complete -c capkg -n "__fish_capkg_using_subcommand diff" -l old-version -d 'The previous release\'s version, where OLD does not say it' -r
complete -c capkg -n "__fish_capkg_using_subcommand diff" -l api-url -d 'API base URL for github.com sources (GitHub Enterprise, a test server); default GITHUB_API_URL, else https://api.github.com' -r
complete -c capkg -n "__fish_capkg_using_subcommand diff" -l provider -d 'Provider name (`aws`); default: from the `cluster.x-k8s.io/provider` labels' -r
complete -c capkg -n "__fish_capkg_using_subcommand diff" -l type -d 'Provider type: `infrastructure`, `bootstrap`, `control-plane`, `core`, `ipam`, `runtime-extension`, `addon`, or clusterctl\'s `InfrastructureProvider`…; default: from the components file name' -r
complete -c capkg -n "__fish_capkg_using_subcommand diff" -l allow -d 'Accept an `upgrade/…` rule\'s findings (repeatable): `--allow RULE=REASON`. Waived findings are still shown, with the reason; `lint: allow:` in capkg.yaml says the same' -r
complete -c capkg -n "__fish_capkg_using_subcommand diff" -l config -d 'capkg\'s configuration file, for its `lint: allow:` waivers; default: the nearest `capkg.yaml` up to the repository root, if there is one' -r -F
complete -c capkg -n "__fish_capkg_using_subcommand diff" -l max-wait -d 'The longest capkg waits before a retry (`90s`, `10m`, `1h`)' -r
complete -c capkg -n "__fish_capkg_using_subcommand diff" -l http-timeout -d 'The longest one HTTP request may take, from connecting to the last byte of the answer (`90s`, `10m`, `1h`)' -r
complete -c capkg -n "__fish_capkg_using_subcommand diff" -l min-transfer-rate -d 'The slowest transfer accepted while a body moves, judged over 30-second windows (`1KiB`, `64KiB`, `1MiB` per second; `0` turns the check off)' -r
complete -c capkg -n "__fish_capkg_using_subcommand diff" -l max-download -d 'The largest answer capkg reads from a server (a release file `verify` downloads, a read-back); a larger one is refused without being read (`256MiB`, `1GiB`)' -r
complete -c capkg -n "__fish_capkg_using_subcommand diff" -l max-layers -d 'The most layers `verify oci://` reads from one artifact; a larger one is refused before any layer is read' -r
complete -c capkg -n "__fish_capkg_using_subcommand diff" -l images-timeout -d 'The time all image lookups of one check share; images not looked up by then are reported as not checked (`30s`, `2m`)' -r
complete -c capkg -n "__fish_capkg_using_subcommand diff" -l max-list-pages -d 'The most pages capkg reads of one list (a repository\'s releases, a project\'s packages, a registry\'s tags); a longer list is an error. A list is also held to `--max-download` bytes in all' -r
complete -c capkg -n "__fish_capkg_using_subcommand diff" -l format -d 'Output format' -r -f -a "human\t'Diagnostics with source snippets, for people'
json\t'One JSON object on stdout, for programs'
github\t'GitHub Actions annotations (`::error file=…::…`)'
markdown\t'Markdown for a pull request comment or release notes (`capkg diff`)'"
complete -c capkg -n "__fish_capkg_using_subcommand diff" -l color -d 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)' -r -f -a "auto\t'Colour when writing to a terminal and `NO_COLOR` is not set'
always\t''
never\t''"
complete -c capkg -n "__fish_capkg_using_subcommand diff" -s q -l quiet -d 'Print only errors and the data asked for'
complete -c capkg -n "__fish_capkg_using_subcommand diff" -s v -l verbose -d 'Say more about what is happening (repeat for more)'
complete -c capkg -n "__fish_capkg_using_subcommand diff" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c capkg -n "__fish_capkg_using_subcommand configmaps" -l version -d 'The release\'s version (`v1.2.3`): the operator\'s `spec.version` and the ConfigMap\'s version label' -r
complete -c capkg -n "__fish_capkg_using_subcommand configmaps" -s n -l namespace -d 'The namespace of the provider\'s custom resource, where the operator looks for its ConfigMaps (`capioperator preload`\'s default); `""` writes none, so that `kubectl create -n NAMESPACE -f` chooses' -r
complete -c capkg -n "__fish_capkg_using_subcommand configmaps" -s o -l output -d 'Write the ConfigMaps to this file instead of stdout' -r -F
complete -c capkg -n "__fish_capkg_using_subcommand configmaps" -l provider -d 'Provider name (`aws`); default: from the `cluster.x-k8s.io/provider` labels' -r
complete -c capkg -n "__fish_capkg_using_subcommand configmaps" -l type -d 'Provider type: `infrastructure`, `bootstrap`, `control-plane`, `core`, `ipam`, `runtime-extension`, `addon`, or clusterctl\'s `InfrastructureProvider`…; default: from the components file name' -r
complete -c capkg -n "__fish_capkg_using_subcommand configmaps" -l format -d 'Output format' -r -f -a "human\t'Diagnostics with source snippets, for people'
json\t'One JSON object on stdout, for programs'
github\t'GitHub Actions annotations (`::error file=…::…`)'
markdown\t'Markdown for a pull request comment or release notes (`capkg diff`)'"
complete -c capkg -n "__fish_capkg_using_subcommand configmaps" -l color -d 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)' -r -f -a "auto\t'Colour when writing to a terminal and `NO_COLOR` is not set'
always\t''
never\t''"
complete -c capkg -n "__fish_capkg_using_subcommand configmaps" -s q -l quiet -d 'Print only errors and the data asked for'
complete -c capkg -n "__fish_capkg_using_subcommand configmaps" -s v -l verbose -d 'Say more about what is happening (repeat for more)'
complete -c capkg -n "__fish_capkg_using_subcommand configmaps" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c capkg -n "__fish_capkg_using_subcommand completions" -l format -d 'Output format' -r -f -a "human\t'Diagnostics with source snippets, for people'
json\t'One JSON object on stdout, for programs'
github\t'GitHub Actions annotations (`::error file=…::…`)'
markdown\t'Markdown for a pull request comment or release notes (`capkg diff`)'"
complete -c capkg -n "__fish_capkg_using_subcommand completions" -l color -d 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)' -r -f -a "auto\t'Colour when writing to a terminal and `NO_COLOR` is not set'
always\t''
never\t''"
complete -c capkg -n "__fish_capkg_using_subcommand completions" -s q -l quiet -d 'Print only errors and the data asked for'
complete -c capkg -n "__fish_capkg_using_subcommand completions" -s v -l verbose -d 'Say more about what is happening (repeat for more)'
complete -c capkg -n "__fish_capkg_using_subcommand completions" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c capkg -n "__fish_capkg_using_subcommand help; and not __fish_seen_subcommand_from lint rules subst vars render assemble init publish release promote verify diff configmaps completions help" -f -a "lint" -d 'Check release files against the clusterctl and provider contracts'
complete -c capkg -n "__fish_capkg_using_subcommand help; and not __fish_seen_subcommand_from lint rules subst vars render assemble init publish release promote verify diff configmaps completions help" -f -a "rules" -d 'List the lint rules, or explain one'
complete -c capkg -n "__fish_capkg_using_subcommand help; and not __fish_seen_subcommand_from lint rules subst vars render assemble init publish release promote verify diff configmaps completions help" -f -a "subst" -d 'Substitute variables as clusterctl does and print the result'
complete -c capkg -n "__fish_capkg_using_subcommand help; and not __fish_seen_subcommand_from lint rules subst vars render assemble init publish release promote verify diff configmaps completions help" -f -a "vars" -d 'List the variables files need, as `clusterctl generate cluster --list-variables` does'
complete -c capkg -n "__fish_capkg_using_subcommand help; and not __fish_seen_subcommand_from lint rules subst vars render assemble init publish release promote verify diff configmaps completions help" -f -a "render" -d 'Print what `clusterctl generate cluster` or `generate provider` would, from local files'
complete -c capkg -n "__fish_capkg_using_subcommand help; and not __fish_seen_subcommand_from lint rules subst vars render assemble init publish release promote verify diff configmaps completions help" -f -a "assemble" -d 'Build the release directory from `capkg.yaml` and the sources'
complete -c capkg -n "__fish_capkg_using_subcommand help; and not __fish_seen_subcommand_from lint rules subst vars render assemble init publish release promote verify diff configmaps completions help" -f -a "init" -d 'Scaffold `capkg.yaml` and CI files for a provider repository'
complete -c capkg -n "__fish_capkg_using_subcommand help; and not __fish_seen_subcommand_from lint rules subst vars render assemble init publish release promote verify diff configmaps completions help" -f -a "publish" -d 'Publish an assembled release directory'
complete -c capkg -n "__fish_capkg_using_subcommand help; and not __fish_seen_subcommand_from lint rules subst vars render assemble init publish release promote verify diff configmaps completions help" -f -a "release" -d 'Tag -> assemble -> lint -> publish -> verify, in one step for CI'
complete -c capkg -n "__fish_capkg_using_subcommand help; and not __fish_seen_subcommand_from lint rules subst vars render assemble init publish release promote verify diff configmaps completions help" -f -a "promote" -d 'Make public a release `capkg release --draft` left, once its images exist'
complete -c capkg -n "__fish_capkg_using_subcommand help; and not __fish_seen_subcommand_from lint rules subst vars render assemble init publish release promote verify diff configmaps completions help" -f -a "verify" -d 'Read a published release as clusterctl does and lint it'
complete -c capkg -n "__fish_capkg_using_subcommand help; and not __fish_seen_subcommand_from lint rules subst vars render assemble init publish release promote verify diff configmaps completions help" -f -a "diff" -d 'Compare two releases: what changed, and what of it breaks an upgrade (`upgrade/…` rules)'
complete -c capkg -n "__fish_capkg_using_subcommand help; and not __fish_seen_subcommand_from lint rules subst vars render assemble init publish release promote verify diff configmaps completions help" -f -a "configmaps" -d 'Print the ConfigMaps cluster-api-operator reads the release\'s providers from'
complete -c capkg -n "__fish_capkg_using_subcommand help; and not __fish_seen_subcommand_from lint rules subst vars render assemble init publish release promote verify diff configmaps completions help" -f -a "completions" -d 'Print a shell completion script'
complete -c capkg -n "__fish_capkg_using_subcommand help; and not __fish_seen_subcommand_from lint rules subst vars render assemble init publish release promote verify diff configmaps completions help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c capkg -n "__fish_capkg_using_subcommand help; and __fish_seen_subcommand_from publish" -f -a "local" -d 'A local repository clusterctl reads as `file://…/{provider-label}/{version}/{file}`'
complete -c capkg -n "__fish_capkg_using_subcommand help; and __fish_seen_subcommand_from publish" -f -a "github" -d 'A GitHub release (token from GITHUB_TOKEN or GH_TOKEN)'
complete -c capkg -n "__fish_capkg_using_subcommand help; and __fish_seen_subcommand_from publish" -f -a "gitlab" -d 'A GitLab generic package (token from GITLAB_TOKEN, GITLAB_ACCESS_TOKEN or CI_JOB_TOKEN)'
complete -c capkg -n "__fish_capkg_using_subcommand help; and __fish_seen_subcommand_from publish" -f -a "oci" -d 'An OCI artifact cluster-api-operator reads (`spec.fetchConfig.oci`); login from OCI_USERNAME/OCI_PASSWORD, OCI_ACCESS_TOKEN or the Docker config file'
