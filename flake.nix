{
  description = "review-classifier: checks Forgejo pull requests against a repo's yes/no rules";

  inputs.nixpkgs.url = "github:NixOS/nixpkgs/nixos-unstable";

  outputs = { self, nixpkgs }:
    let
      systems = [ "x86_64-linux" "aarch64-linux" ];
      forAll = f: nixpkgs.lib.genAttrs systems (system: f nixpkgs.legacyPackages.${system});
    in {
      devShells = forAll (pkgs: {
        default = pkgs.mkShell {
          packages = [ pkgs.bun pkgs.nodejs_20 pkgs.nats-server pkgs.chromium pkgs.git ];
        };
      });

      # The two services run from source under Bun; node_modules comes from the
      # committed package-lock.json (fetched as a fixed-output derivation).
      packages = forAll (pkgs:
        let
          src = pkgs.lib.cleanSource ./.;
          nodeModules = pkgs.buildNpmPackage {
            pname = "review-classifier-deps";
            version = "0.1.0";
            inherit src;
            npmDepsHash = pkgs.lib.fakeHash; # set on the first `nix build`
            dontNpmBuild = true;
            npmFlags = [ "--ignore-scripts" ];
            installPhase = "mkdir -p $out && cp -r node_modules $out/";
          };
          # Bun resolves imports from the file's own directory, so source and
          # node_modules sit side by side in one store path.
          app = pkgs.runCommand "review-classifier-app" { } ''
            mkdir -p $out
            cp -r ${src}/. $out/
            ln -s ${nodeModules}/node_modules $out/node_modules
          '';
          service = name: pkgs.writeShellApplication {
            name = "review-classifier-${name}";
            runtimeInputs = [ pkgs.bun pkgs.nats-server ];
            text = ''
              exec bun run ${app}/entrypoints/${name}.ts "$@"
            '';
          };
        in {
          controller = service "controller";
          classifier = service "classifier";
          cli = service "cli";
          default = service "cli";
        });
    };
}
