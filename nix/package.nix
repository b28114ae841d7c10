# review-classifier: the TypeScript source run by Bun, with node_modules from
# the committed package-lock.json, and three commands in bin/:
#   review-classifier-controller, review-classifier-classifier, review-classifier (the CLI).
#
# Runtime versions. The project is tested against Bun 1.4.5, claude 2.1.332
# (@anthropic-ai/claude-code) and opencode 1.18.33 (opencode-ai), the versions
# package.json pins. Here they come from nixpkgs instead (the npm packages put
# prebuilt binaries from per-platform packages in place in their postinstall
# scripts, built for other distributions' library paths, not for NixOS), so
# the versions are whatever the nixpkgs revision has and may differ. To pin
# them, override the arguments, e.g. in an overlay:
#   review-classifier.override { claude-code = my-claude-code; opencode = my-opencode; bun = my-bun; }
# or set CLAUDE_BIN / OPENCODE_BIN at run time (the wrapper only sets defaults).
# claude-code is unfree in nixpkgs: allow it (allowUnfreePredicate) to build this.
{
  lib,
  buildNpmPackage,
  importNpmLock,
  makeWrapper,
  bun,
  claude-code,
  opencode,
}:
let
  root = ../.;

  # Adds the `resolved` URLs importNpmLock needs and leaves out the dev tools
  # and the npm claude-code/opencode-ai packages (see npm-lock.nix).
  lock = import ./npm-lock.nix {
    package = lib.importJSON (root + "/package.json");
    packageLock = lib.importJSON (root + "/package-lock.json");
    drop = [
      "@anthropic-ai/claude-code"
      "opencode-ai"
    ];
  };
in
buildNpmPackage {
  pname = "review-classifier";
  inherit (lock.package) version;

  # Everything but the tests, benchmarks, tooling and local state, so editing
  # those does not rebuild the package.
  src = lib.fileset.toSource {
    inherit root;
    fileset = lib.fileset.difference root (
      lib.fileset.unions (
        map lib.fileset.maybeMissing [
          (root + "/.ci")
          (root + "/.data")
          (root + "/.env")
          (root + "/.git")
          (root + "/.secrets")
          (root + "/bench")
          (root + "/flake.lock")
          (root + "/flake.nix")
          (root + "/nix")
          (root + "/node_modules")
          (root + "/result")
          (root + "/scripts")
          (root + "/test")
        ]
      )
    );
  };

  # Each package comes from its lockfile `integrity` hash: no npmDepsHash to keep up to date.
  npmDeps = importNpmLock { inherit (lock) package packageLock; };
  npmConfigHook = importNpmLock.npmConfigHook;

  # The hook runs `npm install --ignore-scripts` then `npm rebuild`, and rebuild
  # would run install scripts. None is needed: the ones that fetch binaries
  # (claude-code, opencode-ai, bun) belong to packages left out above, and
  # msgpackr-extract's native addon is optional (msgpackr falls back to JS).
  npmRebuildFlags = [ "--ignore-scripts" ];

  dontNpmBuild = true;

  nativeBuildInputs = [ makeWrapper ];
  # So patchShebangs points entrypoints/cli.ts's `#!/usr/bin/env bun` at this Bun.
  buildInputs = [ bun ];

  installPhase = ''
    runHook preInstall

    share=$out/share/review-classifier
    mkdir -p $share $out/bin
    cp -r . $share/

    # Bun resolves imports from each file's own directory: source and
    # node_modules sit side by side in $share.
    makeWrapper ${lib.getExe bun} $out/bin/review-classifier-controller \
      --add-flags "run $share/entrypoints/controller.ts"
    makeWrapper ${lib.getExe bun} $out/bin/review-classifier-classifier \
      --add-flags "run $share/entrypoints/classifier.ts" \
      --set-default CLAUDE_BIN ${lib.getExe claude-code} \
      --set-default OPENCODE_BIN ${lib.getExe opencode}
    makeWrapper ${lib.getExe bun} $out/bin/review-classifier \
      --add-flags "run $share/entrypoints/cli.ts"

    runHook postInstall
  '';

  passthru = { inherit bun claude-code opencode; };

  meta = {
    description = "Checks Forgejo pull requests against a repo's yes/no rules and posts the result as a review";
    mainProgram = "review-classifier";
    platforms = lib.platforms.linux;
  };
}
