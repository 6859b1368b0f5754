
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'capkg' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'capkg'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'capkg' {
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and the data asked for')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and the data asked for')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more about what is happening (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more about what is happening (repeat for more)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('lint', 'lint', [CompletionResultType]::ParameterValue, 'Check release files against the clusterctl and provider contracts')
            [CompletionResult]::new('rules', 'rules', [CompletionResultType]::ParameterValue, 'List the lint rules, or explain one')
            [CompletionResult]::new('subst', 'subst', [CompletionResultType]::ParameterValue, 'Substitute variables as clusterctl does and print the result')
            [CompletionResult]::new('vars', 'vars', [CompletionResultType]::ParameterValue, 'List the variables files need, as `clusterctl generate cluster --list-variables` does')
            [CompletionResult]::new('render', 'render', [CompletionResultType]::ParameterValue, 'Print what `clusterctl generate cluster` or `generate provider` would, from local files')
            [CompletionResult]::new('assemble', 'assemble', [CompletionResultType]::ParameterValue, 'Build the release directory from `capkg.yaml` and the sources')
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Scaffold `capkg.yaml` and CI files for a provider repository')
            [CompletionResult]::new('publish', 'publish', [CompletionResultType]::ParameterValue, 'Publish an assembled release directory')
            [CompletionResult]::new('release', 'release', [CompletionResultType]::ParameterValue, 'Tag -> assemble -> lint -> publish -> verify, in one step for CI')
            [CompletionResult]::new('promote', 'promote', [CompletionResultType]::ParameterValue, 'Make public a release `capkg release --draft` left, once its images exist')
            [CompletionResult]::new('verify', 'verify', [CompletionResultType]::ParameterValue, 'Read a published release as clusterctl does and lint it')
            [CompletionResult]::new('diff', 'diff', [CompletionResultType]::ParameterValue, 'Compare two releases: what changed, and what of it breaks an upgrade (`upgrade/…` rules)')
            [CompletionResult]::new('configmaps', 'configmaps', [CompletionResultType]::ParameterValue, 'Print the ConfigMaps cluster-api-operator reads the release''s providers from')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'capkg;lint' {
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'The version being released (`v1.2.3`): checks `metadata.yaml` covers it and images carry it')
            [CompletionResult]::new('--provider', '--provider', [CompletionResultType]::ParameterName, 'Provider name (`aws`); default: from the `cluster.x-k8s.io/provider` labels')
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'Provider type: `infrastructure`, `bootstrap`, `control-plane`, `core`, `ipam`, `runtime-extension`, `addon`, or clusterctl''s `InfrastructureProvider`…; default: from the components file name')
            [CompletionResult]::new('--allow', '--allow', [CompletionResultType]::ParameterName, 'Accept a rule''s findings (repeatable): `--allow RULE=REASON`, or `--allow RULE` (the reason then says it came from the command line). Waived findings are still shown, with the reason, and do not fail the run; `lint: allow:` in capkg.yaml says the same per file')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'capkg''s configuration file, for its `lint: allow:` waivers; default: the nearest `capkg.yaml` up to the repository root, if there is one')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Lint every YAML file under the current folder, not the release capkg.yaml describes')
            [CompletionResult]::new('--deny-warnings', '--deny-warnings', [CompletionResultType]::ParameterName, 'Exit 1 on warnings too')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and the data asked for')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and the data asked for')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more about what is happening (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more about what is happening (repeat for more)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'capkg;rules' {
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and the data asked for')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and the data asked for')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more about what is happening (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more about what is happening (repeat for more)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'capkg;subst' {
            [CompletionResult]::new('--var', '--var', [CompletionResultType]::ParameterName, 'Set a variable (repeatable); wins over the environment and the clusterctl config file')
            [CompletionResult]::new('--clusterctl-config', '--clusterctl-config', [CompletionResultType]::ParameterName, 'A clusterctl configuration file whose top-level keys are variables; default: clusterctl''s own (`$XDG_CONFIG_HOME/cluster-api/clusterctl.yaml`, then `~/.cluster-api/clusterctl.yaml`) when it exists')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)')
            [CompletionResult]::new('--plain', '--plain', [CompletionResultType]::ParameterName, 'Exactly drone/envsubst''s `Eval`: no `${ VAR }` pre-pass, no missing-variable check, names looked up as written in the environment and `--var`, unset variables empty')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and the data asked for')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and the data asked for')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more about what is happening (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more about what is happening (repeat for more)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'capkg;vars' {
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and the data asked for')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and the data asked for')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more about what is happening (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more about what is happening (repeat for more)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'capkg;render' {
            [CompletionResult]::new('--cluster-name', '--cluster-name', [CompletionResultType]::ParameterName, 'The cluster''s name (`CLUSTER_NAME`); required for templates')
            [CompletionResult]::new('--flavor', '--flavor', [CompletionResultType]::ParameterName, 'Pick `cluster-template-FLAVOR.yaml` from a provider folder')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace every object goes into (`NAMESPACE`); templates default to `default`, components to their Namespace object')
            [CompletionResult]::new('--target-namespace', '--target-namespace', [CompletionResultType]::ParameterName, 'The namespace every object goes into (`NAMESPACE`); templates default to `default`, components to their Namespace object')
            [CompletionResult]::new('--kubernetes-version', '--kubernetes-version', [CompletionResultType]::ParameterName, '`KUBERNETES_VERSION`')
            [CompletionResult]::new('--control-plane-machine-count', '--control-plane-machine-count', [CompletionResultType]::ParameterName, '`CONTROL_PLANE_MACHINE_COUNT` (default 1)')
            [CompletionResult]::new('--worker-machine-count', '--worker-machine-count', [CompletionResultType]::ParameterName, '`WORKER_MACHINE_COUNT` (default 0)')
            [CompletionResult]::new('--var', '--var', [CompletionResultType]::ParameterName, 'Set a variable (repeatable); wins over the environment and the clusterctl config file')
            [CompletionResult]::new('--clusterctl-config', '--clusterctl-config', [CompletionResultType]::ParameterName, 'A clusterctl configuration file whose top-level keys are variables; default: clusterctl''s own (`$XDG_CONFIG_HOME/cluster-api/clusterctl.yaml`, then `~/.cluster-api/clusterctl.yaml`) when it exists')
            [CompletionResult]::new('--provider', '--provider', [CompletionResultType]::ParameterName, 'Provider name (`aws`); default: from the `cluster.x-k8s.io/provider` labels')
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'Provider type: `infrastructure`, `bootstrap`, `control-plane`, `core`, `ipam`, `runtime-extension`, `addon`, or clusterctl''s `InfrastructureProvider`…; default: from the components file name')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)')
            [CompletionResult]::new('--list-variables', '--list-variables', [CompletionResultType]::ParameterName, 'Print the variables the template needs instead of rendering it')
            [CompletionResult]::new('--raw', '--raw', [CompletionResultType]::ParameterName, 'Components only: do not substitute variables (`clusterctl generate provider --raw`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and the data asked for')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and the data asked for')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more about what is happening (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more about what is happening (repeat for more)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'capkg;assemble' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'capkg''s configuration file; default: `capkg.yaml` at the repository root')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'The version being released (`v1.2.3`); default: the CI tag (`GITHUB_REF_NAME` on a tag push, `CI_COMMIT_TAG`), else `version:` in capkg.yaml (the order `release` follows)')
            [CompletionResult]::new('--out', '--out', [CompletionResultType]::ParameterName, 'Where to write the release (default `out/`, or `output:` in capkg.yaml)')
            [CompletionResult]::new('--provider', '--provider', [CompletionResultType]::ParameterName, 'Provider name (`aws`); default: from the `cluster.x-k8s.io/provider` labels')
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'Provider type: `infrastructure`, `bootstrap`, `control-plane`, `core`, `ipam`, `runtime-extension`, `addon`, or clusterctl''s `InfrastructureProvider`…; default: from the components file name')
            [CompletionResult]::new('--components', '--components', [CompletionResultType]::ParameterName, 'Components from files or folders of manifests, concatenated (repeatable; replaces `components:`)')
            [CompletionResult]::new('--components-command', '--components-command', [CompletionResultType]::ParameterName, 'Components from a command''s standard output, run with `sh -c` in the configuration''s folder (replaces `components:`)')
            [CompletionResult]::new('--metadata', '--metadata', [CompletionResultType]::ParameterName, '`metadata.yaml` of the release (replaces `metadata:`)')
            [CompletionResult]::new('--templates', '--templates', [CompletionResultType]::ParameterName, 'Globs for cluster templates and ClusterClass files (repeatable; replaces `templates:`)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace the components install into (replaces `namespace:`)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and the data asked for')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and the data asked for')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more about what is happening (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more about what is happening (repeat for more)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'capkg;init' {
            [CompletionResult]::new('--provider', '--provider', [CompletionResultType]::ParameterName, 'Provider name (`aws`); default: from the `cluster.x-k8s.io/provider` labels')
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'Provider type: `infrastructure`, `bootstrap`, `control-plane`, `core`, `ipam`, `runtime-extension`, `addon`, or clusterctl''s `InfrastructureProvider`…; default: from the components file name')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Overwrite files that already exist')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and the data asked for')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and the data asked for')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more about what is happening (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more about what is happening (repeat for more)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'capkg;publish' {
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and the data asked for')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and the data asked for')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more about what is happening (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more about what is happening (repeat for more)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('local', 'local', [CompletionResultType]::ParameterValue, 'A local repository clusterctl reads as `file://…/{provider-label}/{version}/{file}`')
            [CompletionResult]::new('github', 'github', [CompletionResultType]::ParameterValue, 'A GitHub release (token from GITHUB_TOKEN or GH_TOKEN)')
            [CompletionResult]::new('gitlab', 'gitlab', [CompletionResultType]::ParameterValue, 'A GitLab generic package (token from GITLAB_TOKEN, GITLAB_ACCESS_TOKEN or CI_JOB_TOKEN)')
            [CompletionResult]::new('oci', 'oci', [CompletionResultType]::ParameterValue, 'An OCI artifact cluster-api-operator reads (`spec.fetchConfig.oci`); login from OCI_USERNAME/OCI_PASSWORD, OCI_ACCESS_TOKEN or the Docker config file')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'capkg;publish;local' {
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'The version being published (`v1.2.3`)')
            [CompletionResult]::new('--provider', '--provider', [CompletionResultType]::ParameterName, 'Provider name (`aws`); default: from the `cluster.x-k8s.io/provider` labels')
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'Provider type: `infrastructure`, `bootstrap`, `control-plane`, `core`, `ipam`, `runtime-extension`, `addon`, or clusterctl''s `InfrastructureProvider`…; default: from the components file name')
            [CompletionResult]::new('--repository', '--repository', [CompletionResultType]::ParameterName, 'The repository''s base folder')
            [CompletionResult]::new('--overrides', '--overrides', [CompletionResultType]::ParameterName, 'Also print the overrides layout clusterctl reads from this folder')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the plan and touch nothing')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Replace an existing, different version folder')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and the data asked for')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and the data asked for')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more about what is happening (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more about what is happening (repeat for more)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'capkg;publish;github' {
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'The version being published (`v1.2.3`)')
            [CompletionResult]::new('--provider', '--provider', [CompletionResultType]::ParameterName, 'Provider name (`aws`); default: from the `cluster.x-k8s.io/provider` labels')
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'Provider type: `infrastructure`, `bootstrap`, `control-plane`, `core`, `ipam`, `runtime-extension`, `addon`, or clusterctl''s `InfrastructureProvider`…; default: from the components file name')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'The repository, `OWNER/NAME`')
            [CompletionResult]::new('--api-url', '--api-url', [CompletionResultType]::ParameterName, 'API base URL; default GITHUB_API_URL, else https://api.github.com')
            [CompletionResult]::new('--max-wait', '--max-wait', [CompletionResultType]::ParameterName, 'The longest capkg waits before a retry; a server that asks for more (a rate limit that resets in an hour) makes publish fail at once, saying how long it asked for (`90s`, `10m`, `1h`)')
            [CompletionResult]::new('--retries', '--retries', [CompletionResultType]::ParameterName, 'Tries per request for failures worth retrying (5xx, cut connections, rate limits)')
            [CompletionResult]::new('--http-timeout', '--http-timeout', [CompletionResultType]::ParameterName, 'The longest one HTTP request may take, from connecting to the last byte of the answer (`90s`, `10m`, `1h`)')
            [CompletionResult]::new('--min-transfer-rate', '--min-transfer-rate', [CompletionResultType]::ParameterName, 'The slowest transfer accepted while a body moves, judged over 30-second windows (`1KiB`, `64KiB`, `1MiB` per second; `0` turns the check off)')
            [CompletionResult]::new('--max-download', '--max-download', [CompletionResultType]::ParameterName, 'The largest answer capkg reads from a server (a release file `verify` downloads, a read-back); a larger one is refused without being read (`256MiB`, `1GiB`)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the plan and touch nothing')
            [CompletionResult]::new('--clobber', '--clobber', [CompletionResultType]::ParameterName, 'Replace assets whose content differs')
            [CompletionResult]::new('--draft', '--draft', [CompletionResultType]::ParameterName, 'Leave the release as a draft')
            [CompletionResult]::new('--prerelease', '--prerelease', [CompletionResultType]::ParameterName, 'Mark the release as a pre-release (automatic for semver pre-releases)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and the data asked for')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and the data asked for')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more about what is happening (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more about what is happening (repeat for more)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'capkg;publish;gitlab' {
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'The version being published (`v1.2.3`)')
            [CompletionResult]::new('--provider', '--provider', [CompletionResultType]::ParameterName, 'Provider name (`aws`); default: from the `cluster.x-k8s.io/provider` labels')
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'Provider type: `infrastructure`, `bootstrap`, `control-plane`, `core`, `ipam`, `runtime-extension`, `addon`, or clusterctl''s `InfrastructureProvider`…; default: from the components file name')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Project id or path; default CI_PROJECT_ID')
            [CompletionResult]::new('--package', '--package', [CompletionResultType]::ParameterName, 'Package name (default: the provider label)')
            [CompletionResult]::new('--api-url', '--api-url', [CompletionResultType]::ParameterName, 'API base URL; default CI_API_V4_URL')
            [CompletionResult]::new('--max-wait', '--max-wait', [CompletionResultType]::ParameterName, 'The longest capkg waits before a retry; a server that asks for more (a rate limit that resets in an hour) makes publish fail at once, saying how long it asked for (`90s`, `10m`, `1h`)')
            [CompletionResult]::new('--retries', '--retries', [CompletionResultType]::ParameterName, 'Tries per request for failures worth retrying (5xx, cut connections, rate limits)')
            [CompletionResult]::new('--http-timeout', '--http-timeout', [CompletionResultType]::ParameterName, 'The longest one HTTP request may take, from connecting to the last byte of the answer (`90s`, `10m`, `1h`)')
            [CompletionResult]::new('--min-transfer-rate', '--min-transfer-rate', [CompletionResultType]::ParameterName, 'The slowest transfer accepted while a body moves, judged over 30-second windows (`1KiB`, `64KiB`, `1MiB` per second; `0` turns the check off)')
            [CompletionResult]::new('--max-download', '--max-download', [CompletionResultType]::ParameterName, 'The largest answer capkg reads from a server (a release file `verify` downloads, a read-back); a larger one is refused without being read (`256MiB`, `1GiB`)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the plan and touch nothing')
            [CompletionResult]::new('--clobber', '--clobber', [CompletionResultType]::ParameterName, 'Upload files whose content differs from the one already in the package (GitLab then serves the new one)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and the data asked for')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and the data asked for')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more about what is happening (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more about what is happening (repeat for more)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'capkg;publish;oci' {
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'The version being published (`v1.2.3`)')
            [CompletionResult]::new('--provider', '--provider', [CompletionResultType]::ParameterName, 'Provider name (`aws`); default: from the `cluster.x-k8s.io/provider` labels')
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'Provider type: `infrastructure`, `bootstrap`, `control-plane`, `core`, `ipam`, `runtime-extension`, `addon`, or clusterctl''s `InfrastructureProvider`…; default: from the components file name')
            [CompletionResult]::new('--repository', '--repository', [CompletionResultType]::ParameterName, 'The repository, `[http://]HOST[:PORT]/PATH[:TAG]` (`http://` only for loopback)')
            [CompletionResult]::new('--tag', '--tag', [CompletionResultType]::ParameterName, 'The tag when REF has none; `{version}` is replaced (default `{version}`)')
            [CompletionResult]::new('--max-wait', '--max-wait', [CompletionResultType]::ParameterName, 'The longest capkg waits before a retry; a server that asks for more (a rate limit that resets in an hour) makes publish fail at once, saying how long it asked for (`90s`, `10m`, `1h`)')
            [CompletionResult]::new('--retries', '--retries', [CompletionResultType]::ParameterName, 'Tries per request for failures worth retrying (5xx, cut connections, rate limits)')
            [CompletionResult]::new('--http-timeout', '--http-timeout', [CompletionResultType]::ParameterName, 'The longest one HTTP request may take, from connecting to the last byte of the answer (`90s`, `10m`, `1h`)')
            [CompletionResult]::new('--min-transfer-rate', '--min-transfer-rate', [CompletionResultType]::ParameterName, 'The slowest transfer accepted while a body moves, judged over 30-second windows (`1KiB`, `64KiB`, `1MiB` per second; `0` turns the check off)')
            [CompletionResult]::new('--max-download', '--max-download', [CompletionResultType]::ParameterName, 'The largest answer capkg reads from a server (a release file `verify` downloads, a read-back); a larger one is refused without being read (`256MiB`, `1GiB`)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the plan and touch nothing')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Move the tag when it points at a different artifact')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and the data asked for')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and the data asked for')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more about what is happening (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more about what is happening (repeat for more)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'capkg;publish;help' {
            [CompletionResult]::new('local', 'local', [CompletionResultType]::ParameterValue, 'A local repository clusterctl reads as `file://…/{provider-label}/{version}/{file}`')
            [CompletionResult]::new('github', 'github', [CompletionResultType]::ParameterValue, 'A GitHub release (token from GITHUB_TOKEN or GH_TOKEN)')
            [CompletionResult]::new('gitlab', 'gitlab', [CompletionResultType]::ParameterValue, 'A GitLab generic package (token from GITLAB_TOKEN, GITLAB_ACCESS_TOKEN or CI_JOB_TOKEN)')
            [CompletionResult]::new('oci', 'oci', [CompletionResultType]::ParameterValue, 'An OCI artifact cluster-api-operator reads (`spec.fetchConfig.oci`); login from OCI_USERNAME/OCI_PASSWORD, OCI_ACCESS_TOKEN or the Docker config file')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'capkg;publish;help;local' {
            break
        }
        'capkg;publish;help;github' {
            break
        }
        'capkg;publish;help;gitlab' {
            break
        }
        'capkg;publish;help;oci' {
            break
        }
        'capkg;publish;help;help' {
            break
        }
        'capkg;release' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'capkg''s configuration file; default: `capkg.yaml` at the repository root')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'The version to release; default: the CI tag (`GITHUB_REF_NAME` on a tag push, `CI_COMMIT_TAG`), else `version:` in capkg.yaml (the order `assemble` follows)')
            [CompletionResult]::new('--target', '--target', [CompletionResultType]::ParameterName, 'Publish only to these targets of the configuration (repeatable)')
            [CompletionResult]::new('--wait-for-images', '--wait-for-images', [CompletionResultType]::ParameterName, 'When images the components name are not in their registry yet (an image build running beside the release), look again with backoff for up to this long (`90s`, `15m`) before refusing; default: look once')
            [CompletionResult]::new('--provider', '--provider', [CompletionResultType]::ParameterName, 'Provider name (`aws`); default: from the `cluster.x-k8s.io/provider` labels')
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'Provider type: `infrastructure`, `bootstrap`, `control-plane`, `core`, `ipam`, `runtime-extension`, `addon`, or clusterctl''s `InfrastructureProvider`…; default: from the components file name')
            [CompletionResult]::new('--http-timeout', '--http-timeout', [CompletionResultType]::ParameterName, 'The longest one HTTP request may take, from connecting to the last byte of the answer (`90s`, `10m`, `1h`)')
            [CompletionResult]::new('--min-transfer-rate', '--min-transfer-rate', [CompletionResultType]::ParameterName, 'The slowest transfer accepted while a body moves, judged over 30-second windows (`1KiB`, `64KiB`, `1MiB` per second; `0` turns the check off)')
            [CompletionResult]::new('--max-download', '--max-download', [CompletionResultType]::ParameterName, 'The largest answer capkg reads from a server (a release file `verify` downloads, a read-back); a larger one is refused without being read (`256MiB`, `1GiB`)')
            [CompletionResult]::new('--max-layers', '--max-layers', [CompletionResultType]::ParameterName, 'The most layers `verify oci://` reads from one artifact; a larger one is refused before any layer is read')
            [CompletionResult]::new('--images-timeout', '--images-timeout', [CompletionResultType]::ParameterName, 'The time all image lookups of one check share; images not looked up by then are reported as not checked (`30s`, `2m`)')
            [CompletionResult]::new('--max-list-pages', '--max-list-pages', [CompletionResultType]::ParameterName, 'The most pages capkg reads of one list (a repository''s releases, a project''s packages, a registry''s tags); a longer list is an error. A list is also held to `--max-download` bytes in all')
            [CompletionResult]::new('--previous', '--previous', [CompletionResultType]::ParameterName, 'The release to compare with before publishing (`capkg diff`): a version looked up at each target (`v1.2.2`), a source `capkg verify` reads, or `none`; default: capkg.yaml `previous:`, else the newest version older than this one at each target')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the plan and touch nothing: no network access, nothing written (the upgrade check runs where the previous release is on this machine)')
            [CompletionResult]::new('--draft', '--draft', [CompletionResultType]::ParameterName, 'Publish where nobody installs from it yet and stop: a GitHub draft release; the local folder, OCI tag and GitLab package version `draft-VERSION`. The images are not looked up; `capkg promote` does that, makes the draft public and verifies it')
            [CompletionResult]::new('--allow-untagged-head', '--allow-untagged-head', [CompletionResultType]::ParameterName, 'Release the sources where capkg.yaml is although their HEAD is not tagged with the version (`--version` or `version:`; a CI tag push is never checked). Without it a release refuses such sources and a dry run warns')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and the data asked for')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and the data asked for')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more about what is happening (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more about what is happening (repeat for more)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'capkg;promote' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'capkg''s configuration file; default: `capkg.yaml` at the repository root')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'The version to release; default: the CI tag (`GITHUB_REF_NAME` on a tag push, `CI_COMMIT_TAG`), else `version:` in capkg.yaml (the order `assemble` follows)')
            [CompletionResult]::new('--target', '--target', [CompletionResultType]::ParameterName, 'Publish only to these targets of the configuration (repeatable)')
            [CompletionResult]::new('--wait-for-images', '--wait-for-images', [CompletionResultType]::ParameterName, 'When images the components name are not in their registry yet (an image build running beside the release), look again with backoff for up to this long (`90s`, `15m`) before refusing; default: look once')
            [CompletionResult]::new('--provider', '--provider', [CompletionResultType]::ParameterName, 'Provider name (`aws`); default: from the `cluster.x-k8s.io/provider` labels')
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'Provider type: `infrastructure`, `bootstrap`, `control-plane`, `core`, `ipam`, `runtime-extension`, `addon`, or clusterctl''s `InfrastructureProvider`…; default: from the components file name')
            [CompletionResult]::new('--http-timeout', '--http-timeout', [CompletionResultType]::ParameterName, 'The longest one HTTP request may take, from connecting to the last byte of the answer (`90s`, `10m`, `1h`)')
            [CompletionResult]::new('--min-transfer-rate', '--min-transfer-rate', [CompletionResultType]::ParameterName, 'The slowest transfer accepted while a body moves, judged over 30-second windows (`1KiB`, `64KiB`, `1MiB` per second; `0` turns the check off)')
            [CompletionResult]::new('--max-download', '--max-download', [CompletionResultType]::ParameterName, 'The largest answer capkg reads from a server (a release file `verify` downloads, a read-back); a larger one is refused without being read (`256MiB`, `1GiB`)')
            [CompletionResult]::new('--max-layers', '--max-layers', [CompletionResultType]::ParameterName, 'The most layers `verify oci://` reads from one artifact; a larger one is refused before any layer is read')
            [CompletionResult]::new('--images-timeout', '--images-timeout', [CompletionResultType]::ParameterName, 'The time all image lookups of one check share; images not looked up by then are reported as not checked (`30s`, `2m`)')
            [CompletionResult]::new('--max-list-pages', '--max-list-pages', [CompletionResultType]::ParameterName, 'The most pages capkg reads of one list (a repository''s releases, a project''s packages, a registry''s tags); a longer list is an error. A list is also held to `--max-download` bytes in all')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and the data asked for')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and the data asked for')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more about what is happening (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more about what is happening (repeat for more)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'capkg;verify' {
            [CompletionResult]::new('--api-url', '--api-url', [CompletionResultType]::ParameterName, 'API base URL (GitHub Enterprise, a test server); default GITHUB_API_URL, else https://api.github.com. The SOURCE keeps its github.com form: `https://github.com/O/R/ releases/TAG/FILE` is read as `{api}/repos/O/R/releases/tags/TAG` and its assets')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'For `oci://REF`: the provider''s `spec.version`, which names the layers the operator reads (default: the tag in REF). For a folder outside the `{label}/{version}/` layout (`out/`): the version being released, checked as `lint --version` does')
            [CompletionResult]::new('--provider', '--provider', [CompletionResultType]::ParameterName, 'Provider name (`aws`); default: from the `cluster.x-k8s.io/provider` labels')
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'Provider type: `infrastructure`, `bootstrap`, `control-plane`, `core`, `ipam`, `runtime-extension`, `addon`, or clusterctl''s `InfrastructureProvider`…; default: from the components file name')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'capkg''s configuration file, for its `lint: allow:` waivers; default: the nearest `capkg.yaml` up to the repository root, if there is one')
            [CompletionResult]::new('--max-wait', '--max-wait', [CompletionResultType]::ParameterName, 'The longest capkg waits before a retry, as for `publish`: a GitHub rate limit that resets later fails at once with clusterctl''s rate-limit message (`90s`, `10m`, `1h`)')
            [CompletionResult]::new('--trusted-root', '--trusted-root', [CompletionResultType]::ParameterName, 'Check the provenance statement''s signature (`capkg-provenance.sigstore.json`, a Sigstore bundle) against this Sigstore trusted root (`trusted_root.json`: the Fulcio CAs and Rekor keys); the signature is then required. Implies `--require-provenance`')
            [CompletionResult]::new('--certificate-identity', '--certificate-identity', [CompletionResultType]::ParameterName, 'The signing certificate''s identity, exactly (its SAN: for GitHub Actions `https://github.com/O/R/.github/workflows/release.yml@refs/tags/v1.2.3`)')
            [CompletionResult]::new('--certificate-identity-regexp', '--certificate-identity-regexp', [CompletionResultType]::ParameterName, 'The signing certificate''s identity, as a regular expression (unanchored, as cosign''s)')
            [CompletionResult]::new('--certificate-oidc-issuer', '--certificate-oidc-issuer', [CompletionResultType]::ParameterName, 'The OIDC issuer the certificate names (GitHub Actions: `https://token.actions.githubusercontent.com`; GitLab: `https://gitlab.com`)')
            [CompletionResult]::new('--repository', '--repository', [CompletionResultType]::ParameterName, 'The git repository holding the commit `--rebuild` checks out (a clone of the provider''s repository); it is only read')
            [CompletionResult]::new('--http-timeout', '--http-timeout', [CompletionResultType]::ParameterName, 'The longest one HTTP request may take, from connecting to the last byte of the answer (`90s`, `10m`, `1h`)')
            [CompletionResult]::new('--min-transfer-rate', '--min-transfer-rate', [CompletionResultType]::ParameterName, 'The slowest transfer accepted while a body moves, judged over 30-second windows (`1KiB`, `64KiB`, `1MiB` per second; `0` turns the check off)')
            [CompletionResult]::new('--max-download', '--max-download', [CompletionResultType]::ParameterName, 'The largest answer capkg reads from a server (a release file `verify` downloads, a read-back); a larger one is refused without being read (`256MiB`, `1GiB`)')
            [CompletionResult]::new('--max-layers', '--max-layers', [CompletionResultType]::ParameterName, 'The most layers `verify oci://` reads from one artifact; a larger one is refused before any layer is read')
            [CompletionResult]::new('--images-timeout', '--images-timeout', [CompletionResultType]::ParameterName, 'The time all image lookups of one check share; images not looked up by then are reported as not checked (`30s`, `2m`)')
            [CompletionResult]::new('--max-list-pages', '--max-list-pages', [CompletionResultType]::ParameterName, 'The most pages capkg reads of one list (a repository''s releases, a project''s packages, a registry''s tags); a longer list is an error. A list is also held to `--max-download` bytes in all')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)')
            [CompletionResult]::new('--require-provenance', '--require-provenance', [CompletionResultType]::ParameterName, 'Fail unless the release has its provenance statement (`capkg-provenance.intoto.json`, which `capkg release` publishes) and every file it names is served with its digest. A statement is checked whenever there is one; this makes one required')
            [CompletionResult]::new('--rebuild', '--rebuild', [CompletionResultType]::ParameterName, 'Assemble the release again from the commit its provenance statement names (checked out into a temporary folder from `--repository`) and compare every file byte for byte with what is served. Implies `--require-provenance`')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and the data asked for')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and the data asked for')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more about what is happening (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more about what is happening (repeat for more)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'capkg;diff' {
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'The new release''s version (`v1.2.3`), where NEW does not say it (a folder such as `out/`)')
            [CompletionResult]::new('--old-version', '--old-version', [CompletionResultType]::ParameterName, 'The previous release''s version, where OLD does not say it')
            [CompletionResult]::new('--api-url', '--api-url', [CompletionResultType]::ParameterName, 'API base URL for github.com sources (GitHub Enterprise, a test server); default GITHUB_API_URL, else https://api.github.com')
            [CompletionResult]::new('--provider', '--provider', [CompletionResultType]::ParameterName, 'Provider name (`aws`); default: from the `cluster.x-k8s.io/provider` labels')
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'Provider type: `infrastructure`, `bootstrap`, `control-plane`, `core`, `ipam`, `runtime-extension`, `addon`, or clusterctl''s `InfrastructureProvider`…; default: from the components file name')
            [CompletionResult]::new('--allow', '--allow', [CompletionResultType]::ParameterName, 'Accept an `upgrade/…` rule''s findings (repeatable): `--allow RULE=REASON`. Waived findings are still shown, with the reason; `lint: allow:` in capkg.yaml says the same')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'capkg''s configuration file, for its `lint: allow:` waivers; default: the nearest `capkg.yaml` up to the repository root, if there is one')
            [CompletionResult]::new('--max-wait', '--max-wait', [CompletionResultType]::ParameterName, 'The longest capkg waits before a retry (`90s`, `10m`, `1h`)')
            [CompletionResult]::new('--http-timeout', '--http-timeout', [CompletionResultType]::ParameterName, 'The longest one HTTP request may take, from connecting to the last byte of the answer (`90s`, `10m`, `1h`)')
            [CompletionResult]::new('--min-transfer-rate', '--min-transfer-rate', [CompletionResultType]::ParameterName, 'The slowest transfer accepted while a body moves, judged over 30-second windows (`1KiB`, `64KiB`, `1MiB` per second; `0` turns the check off)')
            [CompletionResult]::new('--max-download', '--max-download', [CompletionResultType]::ParameterName, 'The largest answer capkg reads from a server (a release file `verify` downloads, a read-back); a larger one is refused without being read (`256MiB`, `1GiB`)')
            [CompletionResult]::new('--max-layers', '--max-layers', [CompletionResultType]::ParameterName, 'The most layers `verify oci://` reads from one artifact; a larger one is refused before any layer is read')
            [CompletionResult]::new('--images-timeout', '--images-timeout', [CompletionResultType]::ParameterName, 'The time all image lookups of one check share; images not looked up by then are reported as not checked (`30s`, `2m`)')
            [CompletionResult]::new('--max-list-pages', '--max-list-pages', [CompletionResultType]::ParameterName, 'The most pages capkg reads of one list (a repository''s releases, a project''s packages, a registry''s tags); a longer list is an error. A list is also held to `--max-download` bytes in all')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and the data asked for')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and the data asked for')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more about what is happening (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more about what is happening (repeat for more)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'capkg;configmaps' {
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'The release''s version (`v1.2.3`): the operator''s `spec.version` and the ConfigMap''s version label')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace of the provider''s custom resource, where the operator looks for its ConfigMaps (`capioperator preload`''s default); `""` writes none, so that `kubectl create -n NAMESPACE -f` chooses')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace of the provider''s custom resource, where the operator looks for its ConfigMaps (`capioperator preload`''s default); `""` writes none, so that `kubectl create -n NAMESPACE -f` chooses')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write the ConfigMaps to this file instead of stdout')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write the ConfigMaps to this file instead of stdout')
            [CompletionResult]::new('--provider', '--provider', [CompletionResultType]::ParameterName, 'Provider name (`aws`); default: from the `cluster.x-k8s.io/provider` labels')
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'Provider type: `infrastructure`, `bootstrap`, `control-plane`, `core`, `ipam`, `runtime-extension`, `addon`, or clusterctl''s `InfrastructureProvider`…; default: from the components file name')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and the data asked for')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and the data asked for')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more about what is happening (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more about what is happening (repeat for more)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'capkg;completions' {
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (`auto`: on a terminal, unless NO_COLOR is set)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and the data asked for')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and the data asked for')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more about what is happening (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more about what is happening (repeat for more)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'capkg;help' {
            [CompletionResult]::new('lint', 'lint', [CompletionResultType]::ParameterValue, 'Check release files against the clusterctl and provider contracts')
            [CompletionResult]::new('rules', 'rules', [CompletionResultType]::ParameterValue, 'List the lint rules, or explain one')
            [CompletionResult]::new('subst', 'subst', [CompletionResultType]::ParameterValue, 'Substitute variables as clusterctl does and print the result')
            [CompletionResult]::new('vars', 'vars', [CompletionResultType]::ParameterValue, 'List the variables files need, as `clusterctl generate cluster --list-variables` does')
            [CompletionResult]::new('render', 'render', [CompletionResultType]::ParameterValue, 'Print what `clusterctl generate cluster` or `generate provider` would, from local files')
            [CompletionResult]::new('assemble', 'assemble', [CompletionResultType]::ParameterValue, 'Build the release directory from `capkg.yaml` and the sources')
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Scaffold `capkg.yaml` and CI files for a provider repository')
            [CompletionResult]::new('publish', 'publish', [CompletionResultType]::ParameterValue, 'Publish an assembled release directory')
            [CompletionResult]::new('release', 'release', [CompletionResultType]::ParameterValue, 'Tag -> assemble -> lint -> publish -> verify, in one step for CI')
            [CompletionResult]::new('promote', 'promote', [CompletionResultType]::ParameterValue, 'Make public a release `capkg release --draft` left, once its images exist')
            [CompletionResult]::new('verify', 'verify', [CompletionResultType]::ParameterValue, 'Read a published release as clusterctl does and lint it')
            [CompletionResult]::new('diff', 'diff', [CompletionResultType]::ParameterValue, 'Compare two releases: what changed, and what of it breaks an upgrade (`upgrade/…` rules)')
            [CompletionResult]::new('configmaps', 'configmaps', [CompletionResultType]::ParameterValue, 'Print the ConfigMaps cluster-api-operator reads the release''s providers from')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'capkg;help;lint' {
            break
        }
        'capkg;help;rules' {
            break
        }
        'capkg;help;subst' {
            break
        }
        'capkg;help;vars' {
            break
        }
        'capkg;help;render' {
            break
        }
        'capkg;help;assemble' {
            break
        }
        'capkg;help;init' {
            break
        }
        'capkg;help;publish' {
            [CompletionResult]::new('local', 'local', [CompletionResultType]::ParameterValue, 'A local repository clusterctl reads as `file://…/{provider-label}/{version}/{file}`')
            [CompletionResult]::new('github', 'github', [CompletionResultType]::ParameterValue, 'A GitHub release (token from GITHUB_TOKEN or GH_TOKEN)')
            [CompletionResult]::new('gitlab', 'gitlab', [CompletionResultType]::ParameterValue, 'A GitLab generic package (token from GITLAB_TOKEN, GITLAB_ACCESS_TOKEN or CI_JOB_TOKEN)')
            [CompletionResult]::new('oci', 'oci', [CompletionResultType]::ParameterValue, 'An OCI artifact cluster-api-operator reads (`spec.fetchConfig.oci`); login from OCI_USERNAME/OCI_PASSWORD, OCI_ACCESS_TOKEN or the Docker config file')
            break
        }
        'capkg;help;publish;local' {
            break
        }
        'capkg;help;publish;github' {
            break
        }
        'capkg;help;publish;gitlab' {
            break
        }
        'capkg;help;publish;oci' {
            break
        }
        'capkg;help;release' {
            break
        }
        'capkg;help;promote' {
            break
        }
        'capkg;help;verify' {
            break
        }
        'capkg;help;diff' {
            break
        }
        'capkg;help;configmaps' {
            break
        }
        'capkg;help;completions' {
            break
        }
        'capkg;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
