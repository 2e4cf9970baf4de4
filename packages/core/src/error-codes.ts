/**
 * What a code means for the `mcp` exit code (the CLI's `exit-codes.ts` turns it into a number):
 * - `usage`: the user's input or flags are wrong;
 * - `failure`: the work was attempted and failed, or a file holds an error;
 * - `bug`: Toolpack itself went wrong; the CLI says where to report it;
 * - `none`: a warning or a note; it never fails a command.
 */
export type ErrorExitClass = 'usage' | 'failure' | 'bug' | 'none';

export interface ErrorCodeEntry {
  /** One line a user can read: what went wrong. */
  readonly meaning: string;
  readonly exit: ErrorExitClass;
}

/**
 * Every code Toolpack throws (`ToolpackError`), reports (`Diagnostic`, `E_` error, `W_` warning,
 * `I_` info) or answers over the registry's HTTP API. Codes are a public contract (JSON output,
 * docs, scripts that match on them): never rename one. `docs/error-codes.md` is checked against
 * this object by a test, and another test fails on a code the sources use that is not listed here.
 */
export const ERROR_CODES = Object.freeze({
  E_ALIAS_TAKEN: {
    meaning: 'The pack alias is already used by another pack of the project.',
    exit: 'failure',
  },
  E_APPROVAL_DECLINED: {
    meaning: "The pack's permissions or tool changes were not approved, so nothing was installed.",
    exit: 'failure',
  },
  E_APPROVAL_REQUIRED: {
    meaning:
      "A pack's permissions or tool changes need approval and there is no terminal to ask on (pass --yes or --allow).",
    exit: 'usage',
  },
  E_ARGUMENTS: {
    meaning: 'The arguments of a tool call do not match its input schema.',
    exit: 'failure',
  },
  E_ARGUMENTS_JSON: {
    meaning: 'The arguments given to mcp call are not a JSON object.',
    exit: 'usage',
  },
  E_AUDIT_FILE: {
    meaning:
      'The audit log file is a symbolic link, a FIFO or another non-regular file, or a hard link: the server does not follow what a pack could have planted.',
    exit: 'failure',
  },
  E_BAD_BODY: {
    meaning: 'Registry API: the request body is not the JSON the endpoint expects.',
    exit: 'failure',
  },
  E_BAD_QUERY: { meaning: 'Registry API: the query string is not valid.', exit: 'failure' },
  E_BAD_UPLOAD: {
    meaning: 'Registry API: the uploaded pack is not a readable multipart upload.',
    exit: 'failure',
  },
  E_BAD_URL: { meaning: 'Registry API: the request URL is not valid.', exit: 'failure' },
  E_BLOB_CLAIM: {
    meaning: 'A registry blob stayed claimed for deletion too long (clocks disagree?).',
    exit: 'failure',
  },
  E_BLOB_KEY: {
    meaning: 'A registry blob key is malformed, or the stored bytes do not hash to it.',
    exit: 'failure',
  },
  E_COLLISION: {
    meaning: 'Two tools have the same name and --strict refuses to serve either.',
    exit: 'failure',
  },
  E_COMMON_PARAMETER: {
    meaning: 'A PowerShell parameter has the name of a common parameter, which PowerShell refuses.',
    exit: 'failure',
  },
  E_CONFIG: {
    meaning: "An MCP client's configuration file cannot be read or is not the expected JSON.",
    exit: 'usage',
  },
  E_CONFLICTING_HINTS: {
    meaning: 'A tool declares hints that contradict each other.',
    exit: 'failure',
  },
  E_CONTAINMENT_MODE: {
    meaning: 'The containment mode in the environment is not a known mode.',
    exit: 'failure',
  },
  E_CONTAINMENT_STDIO: {
    meaning: 'A contained child process was given more file descriptors than allowed.',
    exit: 'failure',
  },
  E_CONTAINMENT_UNAVAILABLE: {
    meaning: 'Namespace containment was required but this system cannot provide it.',
    exit: 'failure',
  },
  E_CREDENTIAL_UNSET: {
    meaning:
      "A credential the server binds for a tool (toolpack.yaml credentials:) has no value: its environment variable is unset or its secrets file can't be read.",
    exit: 'failure',
  },
  E_DECLARATION_SYNTAX: {
    meaning: 'A header-script declaration line cannot be parsed.',
    exit: 'failure',
  },
  E_DISCOVERY_ABORTED: { meaning: 'Discovery was stopped before it finished.', exit: 'failure' },
  E_DOWNLOAD: {
    meaning: 'A pack could not be downloaded or found in its registry folder.',
    exit: 'failure',
  },
  E_DUPLICATE_PARAM: { meaning: 'A header script declares the same PARAM twice.', exit: 'failure' },
  E_DUPLICATE_TOOL: {
    meaning: 'Two exports of a JavaScript module define the same tool.',
    exit: 'failure',
  },
  E_DYNAMIC_EXPORTS: {
    meaning: 'A PowerShell module exports names only known when it runs.',
    exit: 'failure',
  },
  E_ELICITATION_SECRET: {
    meaning:
      'A tool asked its user for a secret (Read-Host -AsSecureString, a credential prompt), which is never put to an MCP client.',
    exit: 'failure',
  },
  E_ELICITATION_UNAVAILABLE: {
    meaning:
      'A tool asked its user a question and nobody can answer: the client has no elicitation, or the call cannot carry one.',
    exit: 'failure',
  },
  E_EMPTY_DESCRIPTION: { meaning: 'A tool or parameter DESCRIPTION is empty.', exit: 'failure' },
  E_ENGINE_PARAMETERS: {
    meaning:
      "pwsh described a PowerShell function's dynamic parameters in a way the reader cannot read; the function is not served.",
    exit: 'failure',
  },
  E_FEED: {
    meaning: 'A NuGet feed cannot be reached, refused the request or answered something unusable.',
    exit: 'failure',
  },
  E_FORBIDDEN: { meaning: 'Registry API: the token may not do this.', exit: 'failure' },
  E_FUNCTION_NAME: {
    meaning: "A tool folder's script does not define the function the tool calls.",
    exit: 'failure',
  },
  E_HINTS_EMPTY: { meaning: 'A HINTS line names no hint.', exit: 'failure' },
  E_HINT_VALUE: { meaning: 'A hint is not true, false or a description.', exit: 'failure' },
  E_HTTP_ORIGIN: {
    meaning: 'An allowed origin for the HTTP transport is not a valid origin.',
    exit: 'failure',
  },
  E_HTTP_TOKEN: {
    meaning:
      'HTTP serving without a token is refused: off loopback, or on loopback with a tool granted the network (such a tool is withheld on reload).',
    exit: 'failure',
  },
  E_INPUT_SCHEMA: {
    meaning: "A tool's input schema is not a valid JSON Schema object.",
    exit: 'failure',
  },
  E_INSTALL: {
    meaning: 'The Toolpack installation is damaged (its package.json cannot be found).',
    exit: 'failure',
  },
  E_INTEGRITY: {
    meaning: 'Downloaded pack bytes do not match their recorded integrity hash.',
    exit: 'failure',
  },
  E_INTERNAL: { meaning: 'A bug in Toolpack: something failed that should not have.', exit: 'bug' },
  E_INVALID_PACK: { meaning: 'Registry API: the published pack is invalid.', exit: 'failure' },
  E_LOCKFILE: { meaning: 'toolpack.lock cannot be read or is not valid.', exit: 'failure' },
  E_LOCK_DRIFT: {
    meaning: 'toolpack.lock does not match toolpack.yaml and --frozen forbids updating it.',
    exit: 'failure',
  },
  E_MANIFEST: {
    meaning: 'A manifest (toolpack.yaml or a PowerShell .psd1) is invalid.',
    exit: 'usage',
  },
  E_MANIFEST_FIELD: {
    meaning: 'A field of toolpack.yaml has the wrong shape or value.',
    exit: 'failure',
  },
  E_MANIFEST_READ: { meaning: 'toolpack.yaml cannot be read.', exit: 'failure' },
  E_MANIFEST_UNKNOWN_KEY: {
    meaning: "toolpack.yaml of a project has a key Toolpack doesn't know.",
    exit: 'failure',
  },
  E_MANIFEST_YAML: { meaning: 'toolpack.yaml is not valid YAML.', exit: 'failure' },
  E_MAX_TOOLS: {
    meaning: 'The sources hold more tools than the configured maximum.',
    exit: 'failure',
  },
  E_METADATA_FIELD: {
    meaning: "A field of a tool folder's metadata file has the wrong type or value.",
    exit: 'failure',
  },
  E_METADATA_SHAPE: { meaning: "A tool folder's metadata file is not a mapping.", exit: 'failure' },
  E_METHOD: { meaning: 'Registry API: the HTTP method is not allowed here.', exit: 'failure' },
  E_MODULE_FILE: { meaning: 'A file of a PowerShell module cannot be read.', exit: 'failure' },
  E_MODULE_FILE_LIMIT: {
    meaning:
      "A PowerShell module's Get-ChildItem calls list more files than Toolpack reads; functions past the limit are missing.",
    exit: 'failure',
  },
  E_MODULE_IMPORT: {
    meaning:
      'pwsh could not import a PowerShell module whose exports only the engine can tell, so none of its tools are served.',
    exit: 'failure',
  },
  E_MODULE_LOAD: { meaning: 'A JavaScript tool module failed to import.', exit: 'failure' },
  E_MODULE_NAME: { meaning: 'A PowerShell module name is empty.', exit: 'failure' },
  E_MODULE_NEEDS_PWSH: {
    meaning:
      'A PowerShell module decides its exports when it runs and no pwsh was found to import it: only the functions its files show are listed.',
    exit: 'failure',
  },
  E_MODULE_NO_TOOLS: {
    meaning: 'A PowerShell module exports functions, but none of them could be served as a tool.',
    exit: 'failure',
  },
  E_MODULE_PATH: {
    meaning: 'A PowerShell module path is not a .psd1 or .psm1 file.',
    exit: 'failure',
  },
  E_NESTED_MODULE_MISSING: {
    meaning: 'A nested module named by a PowerShell manifest does not exist.',
    exit: 'failure',
  },
  E_NOT_A_MODULE: {
    meaning: 'NuGet endpoint: the pack is not a PowerShell module, so it has no .nupkg.',
    exit: 'failure',
  },
  E_NOT_FOUND: { meaning: 'Registry API: nothing exists at this URL.', exit: 'failure' },
  E_NOT_OWNER: { meaning: 'Registry API: the token does not own this pack.', exit: 'failure' },
  E_NO_DESCRIPTION: { meaning: 'A tool has no description.', exit: 'failure' },
  E_NO_MATCHING_VERSION: {
    meaning: 'No published version of a pack satisfies the requested range.',
    exit: 'failure',
  },
  E_NO_RUN: { meaning: 'A defineTool(...) tool has no run function.', exit: 'failure' },
  E_NO_SCRIPT: { meaning: 'A tool folder has no script.', exit: 'failure' },
  E_NO_SOURCES: {
    meaning: 'mcp check found nothing to check: no toolpack.yaml and no source flags.',
    exit: 'failure',
  },
  E_NO_TOOLS: { meaning: 'The project or the given sources serve no tool.', exit: 'failure' },
  E_NUPKG_NOT_MODULE: {
    meaning: 'A NuGet package holds no PowerShell module named for its id, so it cannot be a pack.',
    exit: 'failure',
  },
  E_OFFLINE: {
    meaning: 'A pack is not in the cache and --offline forbids downloading it.',
    exit: 'failure',
  },
  E_OUTPUT_SCHEMA: {
    meaning: "A tool's output schema is not a valid JSON Schema object.",
    exit: 'failure',
  },
  E_OUTPUT_MISMATCH: {
    meaning:
      "A tool's result does not fit its output schema (structuredContent missing or of the wrong shape).",
    exit: 'failure',
  },
  E_PACK_COLLISION: {
    meaning: 'A tool of a pack has the same name as another served tool.',
    exit: 'failure',
  },
  E_PACK_FIELD_MISSING: {
    meaning: "A pack's toolpack.yaml lacks a required field (name, version ...).",
    exit: 'failure',
  },
  E_PACK_FILE_TOO_LARGE: {
    meaning: 'A file of the pack is larger than one pack file may be.',
    exit: 'failure',
  },
  E_PACK_INVALID: {
    meaning: 'A pack cannot be packed or published because it has errors.',
    exit: 'failure',
  },
  E_PACK_NOT_FOUND: {
    meaning: 'The registry has no pack of that name (or no version of it).',
    exit: 'failure',
  },
  E_PACK_NOT_INSTALLED: { meaning: 'The pack is not in toolpack.yaml.', exit: 'failure' },
  E_PACK_NO_MANIFEST: {
    meaning: 'The folder or tarball has no toolpack.yaml, so it is not a pack.',
    exit: 'failure',
  },
  E_PACK_NO_SOURCES: {
    meaning: 'A pack declares no sources, so it has no tools.',
    exit: 'failure',
  },
  E_PACK_NO_TOOLS: { meaning: 'A pack serves no tools.', exit: 'failure' },
  E_PACK_SOURCE_PATH: {
    meaning: 'A source path of a pack leaves the pack folder or is not relative.',
    exit: 'failure',
  },
  E_PACK_TOO_LARGE: {
    meaning: "The pack's files together exceed the size limit.",
    exit: 'failure',
  },
  E_PACK_TOO_MANY_FILES: { meaning: 'The pack has more files than allowed.', exit: 'failure' },
  E_PACK_PERMISSIONS_MISMATCH: {
    meaning:
      "The registry's version document shows other permissions than the pack's own toolpack.yaml.",
    exit: 'failure',
  },
  E_PARAMETERS: {
    meaning: 'The parameters of a tool cannot be turned into an input schema.',
    exit: 'failure',
  },
  E_PARAMETER_NO_DESCRIPTION: {
    meaning: 'A PowerShell parameter has no help text.',
    exit: 'failure',
  },
  E_PARAMETER_SETS: {
    meaning:
      'A PowerShell parameter is declared in the same parameter set twice, or a command has more than 32 parameter sets: PowerShell refuses to load either.',
    exit: 'failure',
  },
  E_PARAMETER_SET_MATCH: {
    meaning: "A call's arguments fit none, or more than one, of the tool's parameter sets.",
    exit: 'failure',
  },
  E_PARAMETER_TYPE: {
    meaning: 'A PowerShell parameter has a type a tool cannot take.',
    exit: 'failure',
  },
  E_PARAM_DESCRIPTION: { meaning: 'A header-script PARAM has no description.', exit: 'failure' },
  E_PARAM_ENUM: {
    meaning: 'The ENUM of a header-script PARAM is not a list of values.',
    exit: 'failure',
  },
  E_PARAM_INVALID: {
    meaning: "A header-script PARAM's LIKE, DEFAULT or ENUM does not fit its type.",
    exit: 'failure',
  },
  E_PARAM_NAME: { meaning: 'A header-script PARAM name is not a valid name.', exit: 'failure' },
  E_PARAM_SYNTAX: { meaning: 'A header-script PARAM line cannot be parsed.', exit: 'failure' },
  E_PARAM_TYPE: {
    meaning: 'A header-script PARAM has an unknown or malformed type.',
    exit: 'failure',
  },
  E_PARAM_VALUE: {
    meaning: 'A value in a header-script PARAM line cannot be converted to its type.',
    exit: 'failure',
  },
  E_PERMISSION_DRIFT: {
    meaning:
      'An installed pack would get wider permissions or changed tools than toolpack.lock approved (--frozen refuses any).',
    exit: 'failure',
  },
  E_PLACEHOLDER_DESCRIPTION: {
    meaning:
      'A tool still has the placeholder description mcp new wrote, which tells a model nothing.',
    exit: 'failure',
  },
  E_PARSE: { meaning: 'A PowerShell script cannot be parsed.', exit: 'failure' },
  E_POLICY: {
    meaning: 'The policy (in toolpack.yaml or a policy file) is invalid or unreadable.',
    exit: 'failure',
  },
  E_POWERSHELL_PARSE: {
    meaning: "A tool folder's PowerShell script cannot be parsed.",
    exit: 'failure',
  },
  E_PRELOAD_MISSING: {
    meaning:
      "A tool-folder source's preload: names a module or script that does not exist, so its PowerShell tools are not served.",
    exit: 'failure',
  },
  E_PUBLISH_REJECTED: { meaning: 'The registry refused the published pack.', exit: 'failure' },
  E_RATE_LIMITED: { meaning: 'Registry API: too many requests; retry later.', exit: 'failure' },
  E_RATE_LIMIT_OPTIONS: {
    meaning: "The registry's rate-limit options are not valid.",
    exit: 'failure',
  },
  E_READ: { meaning: 'A source file cannot be read.', exit: 'failure' },
  E_REGISTRY: {
    meaning: 'The registry answered with an error or is not a Toolpack registry.',
    exit: 'failure',
  },
  E_REGISTRY_CLOSING: {
    meaning: 'Registry API: the registry is shutting down; retry.',
    exit: 'failure',
  },
  E_REGISTRY_DATABASE: {
    meaning:
      'The registry cannot use its PostgreSQL database (bad URL, unreachable, or a migration failed).',
    exit: 'failure',
  },
  E_REGISTRY_LISTEN: {
    meaning: 'The registry cannot listen on its host and port.',
    exit: 'failure',
  },
  E_REGISTRY_MISSING: { meaning: 'The registry folder does not exist.', exit: 'failure' },
  E_REGISTRY_REDIRECT: {
    meaning: 'A registry answer or tarball redirects away from the origins it may come from.',
    exit: 'failure',
  },
  E_REGISTRY_RESPONSE: {
    meaning: 'The registry sent an answer that is not the expected JSON.',
    exit: 'failure',
  },
  E_REGISTRY_SCHEMA: {
    meaning: "The registry's database was written by a newer registry.",
    exit: 'failure',
  },
  E_REGISTRY_SEEDING: {
    meaning: 'Registry API: the registry is still publishing its seed packs.',
    exit: 'failure',
  },
  E_REGISTRY_UNREACHABLE: { meaning: 'The registry cannot be reached.', exit: 'failure' },
  E_ROOT_MODULE_MISSING: {
    meaning: 'The RootModule named by a PowerShell manifest does not exist.',
    exit: 'failure',
  },
  E_RUNNER: { meaning: 'A tool was given to a runner that cannot run its kind.', exit: 'failure' },
  E_RUNNER_CLOSED: { meaning: 'A closed tool runner was asked to run a tool.', exit: 'failure' },
  E_RUNNER_OPTIONS: { meaning: 'A tool runner was created with invalid options.', exit: 'failure' },
  E_RUNTIME_FOLDER: {
    meaning:
      "Toolpack's private runtime folder (sockets, caches, sandbox temp folders) is not a folder of this user that no one else may write.",
    exit: 'failure',
  },
  E_RUNTIME_FUNCTION: {
    meaning:
      'A PowerShell module exports a function it makes at run time, with no function statement in a file to describe it from (or several of that name).',
    exit: 'failure',
  },
  E_SANDBOX_ARGUMENTS: {
    meaning:
      'A confined tool was given more than the sandbox can pass (fds, paths); this is a bug.',
    exit: 'bug',
  },
  E_SANDBOX_PATH: {
    meaning:
      'A folder granted to a confined tool leads out of the project through a symlink, or its own folder is missing.',
    exit: 'failure',
  },
  E_SANDBOX_REQUIRED: {
    meaning:
      'A confined tool was refused because the OS sandbox cannot be had here and the sandbox is required.',
    exit: 'failure',
  },
  E_SCHEMA: { meaning: 'A schema is not valid JSON Schema 2020-12.', exit: 'failure' },
  E_SEVERAL_SCRIPTS: { meaning: 'A tool folder has more than one script.', exit: 'failure' },
  E_SOURCE_MISSING: { meaning: 'A source (folder, file or module) does not exist.', exit: 'usage' },
  E_SWEEP_GRACE: {
    meaning: "The registry's blob-sweep grace period is negative.",
    exit: 'failure',
  },
  E_TARBALL_DUPLICATE: { meaning: 'A pack tarball holds the same path twice.', exit: 'failure' },
  E_TARBALL_EMPTY: { meaning: 'A pack tarball holds no files.', exit: 'failure' },
  E_TARBALL_ENTRY_TYPE: {
    meaning: 'A pack tarball holds something other than files and folders.',
    exit: 'failure',
  },
  E_TARBALL_FILE_TOO_LARGE: {
    meaning: 'A file in a pack tarball is larger than allowed.',
    exit: 'failure',
  },
  E_TARBALL_FORMAT: {
    meaning: 'A pack tarball is not a valid gzip-compressed tar.',
    exit: 'failure',
  },
  E_TARBALL_MISMATCH: {
    meaning: 'The tarball served for a pack holds another pack or version.',
    exit: 'failure',
  },
  E_TARBALL_ORIGIN: {
    meaning: 'A tarball URL points away from the registry that listed it.',
    exit: 'failure',
  },
  E_TARBALL_PATH: { meaning: 'A path in a pack tarball is unsafe or malformed.', exit: 'failure' },
  E_TARBALL_PATH_CHARACTER: {
    meaning: 'A file name in a pack has a deceptive or forbidden character.',
    exit: 'failure',
  },
  E_TARBALL_RATIO: {
    meaning: 'A pack tarball decompresses far beyond its size (a decompression bomb?).',
    exit: 'failure',
  },
  E_TARBALL_TOO_LARGE: { meaning: 'A pack tarball is larger than allowed.', exit: 'failure' },
  E_TARBALL_TOO_MANY_ENTRIES: {
    meaning: 'A pack tarball has more entries than allowed.',
    exit: 'failure',
  },
  E_TARBALL_UNSAFE: {
    meaning: 'A pack tarball is unsafe to unpack; the message lists every problem.',
    exit: 'failure',
  },
  E_TIMEOUT: {
    meaning: "A tool's timeout is not a positive whole number of milliseconds.",
    exit: 'failure',
  },
  E_TOKEN_EXISTS: {
    meaning: 'A different registry token with that id already exists.',
    exit: 'failure',
  },
  E_TOKEN_FORMAT: {
    meaning: "A token is not in the registry's format (tpk_<id>_<secret>).",
    exit: 'failure',
  },
  E_TOKEN_OWNER: {
    meaning: 'The owner name given for a registry token is not valid.',
    exit: 'usage',
  },
  E_TOOL_COLLISION: {
    meaning: 'Installing a pack would give two served tools the same name.',
    exit: 'failure',
  },
  E_TOOL_FOLDER: { meaning: 'A tool folder could not be described.', exit: 'failure' },
  E_TOOL_NAME: { meaning: 'A tool name is not valid.', exit: 'failure' },
  E_TOO_LARGE: { meaning: 'Registry API: the request body is too large.', exit: 'failure' },
  E_UNAUTHORIZED: { meaning: 'Registry API: the request has no valid token.', exit: 'failure' },
  E_UNRESOLVED_TYPE: {
    meaning:
      "A PowerShell command's param block names a type PowerShell cannot resolve there (as a type literal, a class of the script itself or of another file of the module; an attribute misspelled, [VaildateSet()]; a parameter type that names no type, [strin]), so PowerShell cannot load the command.",
    exit: 'failure',
  },
  E_UNKNOWN_TOOL: { meaning: 'No served tool has that name.', exit: 'usage' },
  E_USAGE: {
    meaning: 'The command was used wrongly (flags or arguments that do not fit).',
    exit: 'usage',
  },
  E_VERSION_EXISTS: { meaning: 'That version of the pack is already published.', exit: 'failure' },
  E_VERSION_NOT_FOUND: { meaning: 'Registry API: the pack has no such version.', exit: 'failure' },
  E_WORKFLOW_CYCLE: { meaning: 'Workflows call each other in a cycle.', exit: 'failure' },
  E_WORKFLOW_INPUT: { meaning: 'A workflow input is declared wrongly.', exit: 'failure' },
  E_WORKFLOW_REFERENCE: {
    meaning: 'A ${...} reference in a workflow points at nothing valid.',
    exit: 'failure',
  },
  E_WORKFLOW_SCHEMA: {
    meaning: 'A workflow file does not have the expected shape.',
    exit: 'failure',
  },
  E_WORKFLOW_STEP_ID: { meaning: 'Two steps of a workflow have the same id.', exit: 'failure' },
  E_WORKFLOW_UNKNOWN_TOOL: {
    meaning: 'A workflow step calls a tool that is not served.',
    exit: 'failure',
  },
  E_WRITE: { meaning: 'Files could not be written.', exit: 'failure' },
  E_YAML_SYNTAX: { meaning: 'A YAML metadata file is not valid YAML.', exit: 'failure' },

  W_BINARY_MODULE: {
    meaning: 'A binary PowerShell module is skipped: only functions become tools.',
    exit: 'none',
  },
  W_BLOB_SWEEP_FAILED: { meaning: 'The registry could not remove an orphan blob.', exit: 'none' },
  W_COLLISION: {
    meaning: 'Two tools have the same name; the first one found is served.',
    exit: 'none',
  },
  W_CREDENTIAL_UNUSED: {
    meaning: 'A credentials: entry of toolpack.yaml binds no parameter of any tool.',
    exit: 'none',
  },
  W_DATE_FORMAT: {
    meaning: 'A date example is not ISO 8601, so the date format is not enforced.',
    exit: 'none',
  },
  W_DEFAULT_INVALID: {
    meaning: "A parameter's default breaks its own validation, so the schema shows no default.",
    exit: 'none',
  },
  W_DOT_SOURCE_MISSING: {
    meaning: 'A dot-sourced file of a module cannot be read; its functions are skipped.',
    exit: 'none',
  },
  W_DUPLICATE_DESCRIPTION: { meaning: 'A second DESCRIPTION line is ignored.', exit: 'none' },
  W_DYNAMIC_PARAMETERS: {
    meaning:
      'A PowerShell function declares parameters in a dynamicparam block that could not all be described (no pwsh to ask, or they depend on the arguments of the call): it is served without those.',
    exit: 'none',
  },
  W_DUPLICATE_KEY: {
    meaning: 'Two spellings of one metadata key are set; one is ignored.',
    exit: 'none',
  },
  W_DUPLICATE_TAG: { meaning: 'A pack tag repeats another one and is kept once.', exit: 'none' },
  W_ENV_WITHHELD: {
    meaning: 'A pack asks for an environment variable Toolpack never passes on.',
    exit: 'none',
  },
  W_EXAMPLE_IGNORED: {
    meaning:
      "An example calls the tool with arguments that do not fit its input schema; it is not one of the tool's input examples (a PowerShell example stays help text).",
    exit: 'none',
  },
  W_EXTERNAL_HELP: {
    meaning:
      'An external (MAML) help file cannot be read or is not MAML; Get-Help skips it, and so do the functions it would describe.',
    exit: 'none',
  },
  W_FOLDER_NAME: { meaning: "A tool folder's name does not match its tool name.", exit: 'none' },
  W_FUNCTION_NOT_FOUND: {
    meaning: 'A function listed by FunctionsToExport is defined nowhere in the module.',
    exit: 'none',
  },
  W_HINT_READS_AS_DENIAL: {
    meaning: 'A hint is declared true but its text reads as if it were not meant.',
    exit: 'none',
  },
  W_IGNORE_PATTERN_NEVER_MATCHES: {
    meaning: 'A pattern in a pack ignore file can never match.',
    exit: 'none',
  },
  W_MANIFEST_UNKNOWN_KEY: {
    meaning: "A pack's toolpack.yaml has an unknown key, which is ignored.",
    exit: 'none',
  },
  W_METADATA_DISAGREE: {
    meaning:
      'A tool folder has metadata.json and metadata.yaml that say different things; metadata.json is read, as dotbot reads it.',
    exit: 'none',
  },
  W_MISSPELLED_KEYWORD: {
    meaning:
      'A help or header keyword is misspelled (.SYNOPSYS, # PARM): Get-Help ignores that comment block, Toolpack that header line.',
    exit: 'none',
  },
  W_NO_FUNCTIONS: {
    meaning: 'A PowerShell module exports no functions, so it provides no tools.',
    exit: 'none',
  },
  W_NO_METADATA: {
    meaning: 'A folder has scripts but no metadata file, so it is not a tool.',
    exit: 'none',
  },
  W_NO_TOOLS: { meaning: 'A JavaScript module exports no defineTool(...) values.', exit: 'none' },
  W_OUTPUT_TYPE: {
    meaning:
      "A PowerShell command's [OutputType()] or .OUTPUTS cannot become an output schema (several types, an unknown type, an unreadable property line); the tool has none.",
    exit: 'none',
  },
  W_PACK_DEPENDENCIES: {
    meaning: 'A pack lists packs of its own; they are ignored.',
    exit: 'none',
  },
  W_PACK_LINK_SKIPPED: { meaning: 'A symbolic link is left out of the pack.', exit: 'none' },
  W_PACK_NOT_INSTALLED: {
    meaning: 'A pack of the project is missing or damaged in the packs folder.',
    exit: 'none',
  },
  W_PACK_NOT_APPROVED: {
    meaning:
      'The installed pack asks for more than toolpack.lock approved; its tools get only what was approved.',
    exit: 'none',
  },
  W_PACK_SPECIAL_FILE_SKIPPED: {
    meaning: 'A socket, FIFO or device is left out of the pack.',
    exit: 'none',
  },
  W_PACK_STALE: {
    meaning: 'The installed pack is not the version the project asks for.',
    exit: 'none',
  },
  W_PARAMETER_NO_DESCRIPTION: {
    meaning:
      'A PowerShell parameter has no help text; lenient help (lenientHelp: true, --lenient-help) serves the tool anyway.',
    exit: 'none',
  },
  W_PARAMETER_SET_DROPPED: {
    meaning:
      'A PowerShell parameter set needs a parameter no JSON value can stand for; the tool is served without that set.',
    exit: 'none',
  },
  W_PARAMETER_TYPE: {
    meaning: 'A PowerShell parameter has a type clients cannot send; it is left out of the schema.',
    exit: 'none',
  },
  W_PATTERN_CHANGED: {
    meaning: 'A PowerShell validation pattern was adapted to JSON Schema.',
    exit: 'none',
  },
  W_SANDBOX_UNAVAILABLE: {
    meaning: "The OS sandbox cannot be had here: confined tools run with the user's full rights.",
    exit: 'none',
  },
  W_SCHEMA_REQUIRED: {
    meaning: 'A schema’s required is not a list and was read as one.',
    exit: 'none',
  },
  W_SEED_CHANGED: {
    meaning: 'A seed pack changed since it was published; the published tarball is served.',
    exit: 'none',
  },
  W_SEVERAL_METADATA: {
    meaning: 'A tool folder has several metadata files; only one is read.',
    exit: 'none',
  },
  W_SOURCE_EMPTY: { meaning: 'No folder matches a tool-folder pattern.', exit: 'none' },
  W_TOOLS_OUTSIDE_SOURCES: {
    meaning: 'A folder holds tool files that no source covers, so they are not served.',
    exit: 'none',
  },
  W_UNKNOWN_HINT: { meaning: 'An unknown hint or annotation is ignored.', exit: 'none' },
  W_UNKNOWN_KEY: {
    meaning: 'A tool metadata file has an unknown key, which is ignored.',
    exit: 'none',
  },
  W_UNKNOWN_OPTION: {
    meaning:
      'An OPTIONS line, metadata flag or PowerShell .NOTES line names an option Toolpack does not know (a .NOTES line only when it is close to one); it is ignored.',
    exit: 'none',
  },
  W_UNKNOWN_PARAMETER_HELP: {
    meaning: 'Help documents a parameter the function does not declare.',
    exit: 'none',
  },
  W_VALIDATION_IGNORED: {
    meaning: 'A PowerShell validation attribute cannot be expressed and is ignored.',
    exit: 'none',
  },

  I_DEFAULT_DROPPED: {
    meaning: "A parameter's default does not fit its type, so the schema shows no default.",
    exit: 'none',
  },
  I_DOTBOT_SESSION: {
    meaning:
      "A tool-folder source belongs to a dotbot project: its PowerShell tools run in the session dotbot's own server gives them.",
    exit: 'none',
  },
  I_DYNAMIC_DOT_SOURCE: {
    meaning:
      'A module dot-sources files found when it runs; Toolpack reads the .ps1 files of that folder instead.',
    exit: 'none',
  },
  I_ENGINE_EXPORTS: {
    meaning:
      'A PowerShell module was imported in pwsh to learn which functions it exports (cached until a file of the module changes).',
    exit: 'none',
  },
  I_ENGINE_FACTS: {
    meaning:
      'A PowerShell module was imported in pwsh to describe what its files cannot tell: dynamic parameters, enums of its own assemblies (cached until a file of the module changes).',
    exit: 'none',
  },
  I_NAME_FROM_FOLDER: { meaning: 'A tool takes its name from its folder.', exit: 'none' },
  I_NESTED_MODULE_SKIPPED: {
    meaning:
      'A nested module is not a file next to its manifest; its functions are not discovered.',
    exit: 'none',
  },
  I_NOT_A_TOOL: { meaning: 'A script has no tool header, so it is not a tool.', exit: 'none' },
  I_PARAMETER_AS_STRING: {
    meaning:
      'A PowerShell parameter of a .NET type is sent as a string, which PowerShell converts.',
    exit: 'none',
  },
  I_RENAMED: {
    meaning: 'A tool is served under a normalized name (tool names are plain identifiers).',
    exit: 'none',
  },
  I_SKIPPED_FILE: {
    meaning:
      'A script root skips a file it would otherwise serve: a test or spec file (*.Tests.ps1, *.test.js) or a dot-file.',
    exit: 'none',
  },
  I_UNKNOWN_KEY: { meaning: 'A tool metadata file has a key Toolpack does not use.', exit: 'none' },
  I_UNTYPED_PARAMETER: {
    meaning: 'A PowerShell parameter has no type and accepts any value.',
    exit: 'none',
  },
  I_WORKFLOW_DISABLED: {
    meaning: 'A workflow is disabled (enabled: false) and not served.',
    exit: 'none',
  },
} as const satisfies Record<string, ErrorCodeEntry>);

/** Every code Toolpack uses; a code not in the catalogue is a compile error. */
export type ToolpackErrorCode = keyof typeof ERROR_CODES;

/** The catalogue entry of `code`, or undefined for a code Toolpack does not know (another version's). */
export function describeErrorCode(code: string): ErrorCodeEntry | undefined {
  return Object.hasOwn(ERROR_CODES, code) ? ERROR_CODES[code as ToolpackErrorCode] : undefined;
}
