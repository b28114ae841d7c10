# services.review-classifier: the controller (webhook, API, health) and the
# classifier (queue worker running claude/opencode) as two systemd units, with
# their state (the secrets directory and the classifier's work directory)
# under /var/lib/review-classifier, never in the Nix store.
#
# The environment contract is entrypoints/config.ts; each option below names
# the variable it sets. Secrets (FORGE_WEBHOOK_SECRET, BAO_TOKEN, NATS_PASSWORD) go in
# `environmentFile`, never in an option, which would put them in the store.
{
  config,
  lib,
  pkgs,
  ...
}:
let
  cfg = config.services.review-classifier;
  inherit (lib)
    mkEnableOption
    mkIf
    mkOption
    optional
    optionalAttrs
    types
    ;

  name = "review-classifier";
  stateDir = "/var/lib/${name}";
  defaultSecretsDir = "${stateDir}/secrets";
  secretsInStateDir = cfg.bao.address == null && cfg.secretsDir == defaultSecretsDir;
  # As entrypoints/config.ts reads HOST: 127.0.0.0/8, ::1 (bracketed or not) or localhost.
  isLoopbackHost =
    host:
    let
      bare = lib.removeSuffix "]" (lib.removePrefix "[" (lib.toLower host));
    in
    bare == "localhost" || bare == "::1" || lib.hasPrefix "127." bare;
  loopbackNames = [
    "127.0.0.1"
    "localhost"
    "[::1]"
  ];

  natsUnit = optional cfg.nats.local.enable "nats.service";

  # What both processes read.
  commonEnvironment =
    {
      NATS_URL = cfg.nats.url;
      SWARM = cfg.swarm;
      LOG_LEVEL = cfg.logLevel;
    }
    // optionalAttrs (cfg.otlpEndpoint != null) { OTEL_EXPORTER_OTLP_ENDPOINT = cfg.otlpEndpoint; }
    // optionalAttrs (cfg.nats.credsFile != null) { NATS_CREDS = cfg.nats.credsFile; }
    // (
      if cfg.bao.address != null then
        { BAO_ADDR = cfg.bao.address; }
        // optionalAttrs (cfg.bao.tokenFile != null) { BAO_TOKEN_FILE = cfg.bao.tokenFile; }
      else
        { SECRETS_DIR = cfg.secretsDir; }
    );

  # Settings both units share: the user, the state directory, restarts and hardening.
  commonServiceConfig = {
    User = name;
    Group = name;
    # Both units list the same directories; systemd creates them owned by the
    # user, mode 0700. SECRETS_DIR is written by the controller (the service
    # account's forge token) and read by both.
    StateDirectory = [ name ] ++ optional secretsInStateDir "${name}/secrets";
    StateDirectoryMode = "0700";
    WorkingDirectory = stateDir;
    EnvironmentFile = optional (cfg.environmentFile != null) cfg.environmentFile;
    # A secrets directory elsewhere (say, managed by another tool) must stay
    # writable for the controller; "-": no failure while it doesn't exist.
    ReadWritePaths = optional (
      cfg.bao.address == null && !secretsInStateDir
    ) "-${cfg.secretsDir}";

    Restart = "on-failure";
    RestartSec = "5s";
    KillSignal = "SIGTERM";
    UMask = "0077";

    NoNewPrivileges = true;
    ProtectSystem = "strict";
    ProtectHome = true;
    PrivateTmp = true;
    PrivateDevices = true;
    ProtectKernelTunables = true;
    ProtectKernelModules = true;
    ProtectKernelLogs = true;
    ProtectControlGroups = true;
    ProtectClock = true;
    ProtectHostname = true;
    ProtectProc = "invisible";
    RestrictNamespaces = true;
    RestrictRealtime = true;
    RestrictSUIDSGID = true;
    RemoveIPC = true;
    LockPersonality = true;
    CapabilityBoundingSet = "";
    RestrictAddressFamilies = [
      "AF_UNIX"
      "AF_INET"
      "AF_INET6"
      "AF_NETLINK"
    ];
    SystemCallArchitectures = "native";
    # @system-service keeps setsid/setpgid, which the classifier's children
    # (each in its own process group) need.
    SystemCallFilter = [
      "@system-service"
      "~@privileged"
    ];
    SystemCallErrorNumber = "EPERM";
    # Not MemoryDenyWriteExecute: Bun's (and claude's, opencode's) JIT needs W+X memory.
  };

  unitOrdering = {
    wantedBy = [ "multi-user.target" ];
    wants = [ "network-online.target" ] ++ natsUnit;
    after = [ "network-online.target" ] ++ natsUnit;
  };

  absolutePath = types.strMatching "/.+";
in
{
  options.services.review-classifier = {
    enable = mkEnableOption "review-classifier, which checks Forgejo pull requests against a repo's rules";

    package = mkOption {
      type = types.package;
      default = pkgs.callPackage ./package.nix { };
      defaultText = lib.literalExpression "pkgs.callPackage ./package.nix { }";
      description = ''
        The package with bin/review-classifier-controller and
        bin/review-classifier-classifier. It takes claude-code (unfree: allow it
        with `nixpkgs.config.allowUnfreePredicate`) and opencode from nixpkgs.
      '';
    };

    swarm = mkOption {
      type = types.strMatching "[A-Za-z0-9_-]+";
      default = "swarm";
      description = "Subject prefix on the queue (SWARM).";
    };

    logLevel = mkOption {
      type = types.enum [
        "debug"
        "info"
        "warn"
        "error"
      ];
      default = "info";
      description = "LOG_LEVEL.";
    };

    otlpEndpoint = mkOption {
      type = types.nullOr types.str;
      default = null;
      example = "http://127.0.0.1:4317";
      description = "OTLP gRPC endpoint for metrics (OTEL_EXPORTER_OTLP_ENDPOINT); null: metrics off.";
    };

    nats = {
      url = mkOption {
        type = types.str;
        default = "nats://127.0.0.1:${toString config.services.nats.port}";
        defaultText = lib.literalExpression ''"nats://127.0.0.1:''${toString config.services.nats.port}"'';
        description = "NATS_URL. The server needs JetStream (the key-value buckets live there).";
      };
      credsFile = mkOption {
        type = types.nullOr absolutePath;
        default = null;
        example = "/run/secrets/review-classifier.creds";
        description = ''
          NATS_CREDS: a .creds file (user JWT and NKEY seed) both units sign in
          with, read at start; readable by the user `review-classifier`. For a
          user and password instead, put NATS_USER and NATS_PASSWORD in
          `environmentFile`.
        '';
      };
      local.enable = mkEnableOption "a local NATS server with JetStream (services.nats) for the services";
    };

    bao = {
      address = mkOption {
        type = types.nullOr types.str;
        default = null;
        example = "https://bao.example.org:8200";
        description = ''
          OpenBao address (BAO_ADDR). With it, secrets come from OpenBao (KV v2
          mount `secret`) and `secretsDir` is not used; the token comes from
          `bao.tokenFile` or from BAO_TOKEN in `environmentFile`.
        '';
      };
      tokenFile = mkOption {
        type = types.nullOr absolutePath;
        default = null;
        example = "/run/openbao-agent/token";
        description = ''
          BAO_TOKEN_FILE: read on every use, so an agent may rotate it. Must be
          readable by the user `review-classifier`, and not under /home, /root
          or /tmp (the units can't see those).
        '';
      };
    };

    secretsDir = mkOption {
      type = absolutePath;
      default = defaultSecretsDir;
      description = ''
        SECRETS_DIR when `bao.address` is null: one file per `<path>/<field>`,
        owned by `review-classifier`, mode 600. The controller writes the
        service account's forge token here, so it must be writable.
      '';
    };

    environmentFile = mkOption {
      type = types.nullOr absolutePath;
      default = null;
      example = "/run/secrets/review-classifier.env";
      description = ''
        A file of VAR=value lines both units read (systemd EnvironmentFile),
        for secrets: FORGE_WEBHOOK_SECRET, BAO_TOKEN, NATS_PASSWORD. Give it as a string
        path outside the store.
      '';
    };

    extraEnvironment = mkOption {
      type = types.attrsOf types.str;
      default = { };
      example = {
        ANTHROPIC_BASE_URL = "https://llm-gateway.example.org";
        HTTPS_PROXY = "http://proxy.example.org:3128";
      };
      description = ''
        More variables for both units, set last (they win over the options),
        e.g. the ones the classifier passes through to the runtimes:
        ANTHROPIC_BASE_URL, HTTPS_PROXY, NO_PROXY, NODE_EXTRA_CA_CERTS,
        SSL_CERT_FILE. Not for secrets: use `environmentFile`.
      '';
    };

    controller = {
      enable = mkOption {
        type = types.bool;
        default = true;
        description = "Whether to run the controller on this machine.";
      };
      host = mkOption {
        type = types.str;
        default = if cfg.controller.openFirewall then "0.0.0.0" else "127.0.0.1";
        defaultText = lib.literalExpression ''if config.services.review-classifier.controller.openFirewall then "0.0.0.0" else "127.0.0.1"'';
        example = "10.0.0.5";
        description = ''
          HOST: the address the controller listens on. Whoever reaches it may name any
          Remote-User, so it must be reachable only through the gateway that
          authenticates the admins: loopback for a gateway on this machine, a private
          interface for one elsewhere. With `openFirewall` the default is every address,
          as it was.
        '';
      };
      port = mkOption {
        type = types.port;
        default = 8080;
        description = "PORT the controller listens on, at `controller.host`.";
      };
      allowedHosts = mkOption {
        type = types.listOf types.str;
        default = if isLoopbackHost cfg.controller.host then loopbackNames else [ ];
        defaultText = lib.literalExpression ''if <controller.host is a loopback address> then [ "127.0.0.1" "localhost" "[::1]" ] else [ ]'';
        example = [ "review.example.org" ];
        description = ''
          ALLOWED_HOSTS: the host names (no ports) a request's Host may name; any other
          gets a 421. Empty: any Host. List every name the controller is reached by:
          the gateway's upstream Host, the forge's webhook URL, health checks. On a
          loopback `host` the default is the loopback names, as the launcher sets them,
          so a web page whose DNS name is rebound to 127.0.0.1 gets nothing; a gateway
          on this machine that passes the browser's Host through (Caddy does by default)
          must have that name listed here too, or send the upstream's own address.
        '';
      };
      openFirewall = mkOption {
        type = types.bool;
        default = false;
        description = "Whether to open `controller.port` in the firewall.";
      };
      forgeUrl = mkOption {
        type = types.nullOr types.str;
        default = null;
        example = "https://forge.example.org";
        description = "FORGE_URL; null: no reviews, /readyz says not configured.";
      };
      noreplyDomain = mkOption {
        type = types.nullOr types.str;
        default = null;
        description = "FORGE_NOREPLY_DOMAIN; null: the forge URL's host.";
      };
      runTimeout = mkOption {
        type = types.ints.between 1 86400;
        default = 900;
        description = "RUN_TIMEOUT_S: seconds a review waits for the classifier.";
      };
      drainTimeout = mkOption {
        type = types.ints.between 0 3600;
        default = 30;
        description = "DRAIN_TIMEOUT_S: on stop, seconds the running reviews may go on before they get a no-verdict comment.";
      };
    };

    classifier = {
      enable = mkOption {
        type = types.bool;
        default = true;
        description = "Whether to run the classifier on this machine.";
      };
      classificationTimeout = mkOption {
        type = types.ints.between 1 3600;
        default = 180;
        description = "CLASSIFICATION_TIMEOUT_S.";
      };
      maxSessions = mkOption {
        type = types.ints.between 1 64;
        default = 8;
        description = "MAX_SESSIONS: model sessions at once, across runs.";
      };
      acpBaseUrls = mkOption {
        type = types.nullOr (types.listOf types.str);
        default = null;
        example = [ "https://llm.example.org/v1" ];
        description = ''
          ACP_BASE_URLS: the only acp.base_url values an ACP run may name (the
          ACP key goes there); null: any, which any settings PUT can change.
        '';
      };
      claudeBin = mkOption {
        type = types.nullOr absolutePath;
        default = null;
        description = "CLAUDE_BIN; null: the package's claude-code.";
      };
      opencodeBin = mkOption {
        type = types.nullOr absolutePath;
        default = null;
        description = "OPENCODE_BIN; null: the package's opencode.";
      };
    };
  };

  config = mkIf cfg.enable {
    assertions = [
      {
        assertion = cfg.bao.tokenFile == null || cfg.bao.address != null;
        message = "services.review-classifier.bao.tokenFile is set but bao.address is not.";
      }
      {
        assertion = !(lib.hasPrefix "${builtins.storeDir}/" cfg.secretsDir);
        message = "services.review-classifier.secretsDir must not be in the Nix store (it is written to).";
      }
    ];

    users.users.${name} = {
      isSystemUser = true;
      group = name;
      home = stateDir;
      description = "review-classifier services";
    };
    users.groups.${name} = { };

    services.nats = mkIf cfg.nats.local.enable {
      enable = true;
      jetstream = true;
    };

    networking.firewall.allowedTCPPorts = optional (
      cfg.controller.enable && cfg.controller.openFirewall
    ) cfg.controller.port;

    systemd.services."${name}-controller" = mkIf cfg.controller.enable (
      unitOrdering
      // {
        description = "review-classifier controller (webhook, API, health)";
        environment =
          commonEnvironment
          // {
            HOST = cfg.controller.host;
            PORT = toString cfg.controller.port;
            RUN_TIMEOUT_S = toString cfg.controller.runTimeout;
            DRAIN_TIMEOUT_S = toString cfg.controller.drainTimeout;
          }
          // optionalAttrs (cfg.controller.allowedHosts != [ ]) {
            ALLOWED_HOSTS = lib.concatStringsSep "," cfg.controller.allowedHosts;
          }
          // optionalAttrs (cfg.controller.forgeUrl != null) { FORGE_URL = cfg.controller.forgeUrl; }
          // optionalAttrs (cfg.controller.noreplyDomain != null) {
            FORGE_NOREPLY_DOMAIN = cfg.controller.noreplyDomain;
          }
          // cfg.extraEnvironment;
        serviceConfig =
          commonServiceConfig
          // {
            ExecStart = lib.getExe' cfg.package "review-classifier-controller";
            # It drains for up to DRAIN_TIMEOUT_S on SIGTERM, then posts its comments (10 s more at most).
            TimeoutStopSec = "${toString (cfg.controller.drainTimeout + 15)}s";
          }
          // optionalAttrs (cfg.controller.port < 1024) {
            AmbientCapabilities = [ "CAP_NET_BIND_SERVICE" ];
            CapabilityBoundingSet = [ "CAP_NET_BIND_SERVICE" ];
          };
      }
    );

    systemd.services."${name}-classifier" = mkIf cfg.classifier.enable (
      unitOrdering
      // {
        description = "review-classifier classifier (queue worker running claude/opencode)";
        environment =
          commonEnvironment
          // {
            CLASSIFICATION_TIMEOUT_S = toString cfg.classifier.classificationTimeout;
            MAX_SESSIONS = toString cfg.classifier.maxSessions;
            WORK_DIR = "${stateDir}/work";
          }
          // optionalAttrs (cfg.classifier.acpBaseUrls != null) {
            ACP_BASE_URLS = lib.concatStringsSep " " cfg.classifier.acpBaseUrls;
          }
          // optionalAttrs (cfg.classifier.claudeBin != null) { CLAUDE_BIN = cfg.classifier.claudeBin; }
          // optionalAttrs (cfg.classifier.opencodeBin != null) { OPENCODE_BIN = cfg.classifier.opencodeBin; }
          // cfg.extraEnvironment;
        serviceConfig = commonServiceConfig // {
          ExecStart = lib.getExe' cfg.package "review-classifier-classifier";
          StateDirectory = commonServiceConfig.StateDirectory ++ [ "${name}/work" ];
          # SIGTERM to the classifier alone: it drains (runs in hand go on for
          # up to 20 s, then it stops their sessions and answers) and exits.
          # The default, control-group, would signal every model session at
          # the same moment; what is left after the exit gets SIGKILL.
          KillMode = "mixed";
          TimeoutStopSec = "35s";
        };
      }
    );
  };
}
