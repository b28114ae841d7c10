{
  description = "review-classifier: checks Forgejo pull requests against a repo's yes/no rules";

  inputs.nixpkgs.url = "github:NixOS/nixpkgs/nixos-unstable";

  outputs =
    { self, nixpkgs }:
    let
      inherit (nixpkgs) lib;
      systems = [
        "x86_64-linux"
        "aarch64-linux"
      ];
      pkgsFor =
        system:
        import nixpkgs {
          inherit system;
          # claude-code is unfree in nixpkgs; this allows that one package and nothing else.
          config.allowUnfreePredicate = pkg: lib.getName pkg == "claude-code";
        };
      forAll = f: lib.genAttrs systems (system: f (pkgsFor system));
    in
    {
      # The services run from source under Bun, node_modules from the committed
      # package-lock.json; claude and opencode come from nixpkgs (nix/package.nix
      # says which versions the project is tested against and how to pin them).
      packages = forAll (
        pkgs:
        let
          app = pkgs.callPackage ./nix/package.nix { };
          # One command each, for `nix run .#controller` and friends.
          only =
            name: bin:
            pkgs.runCommand "review-classifier-${name}-${app.version}" { meta.mainProgram = bin; } ''
              mkdir -p $out/bin
              ln -s ${app}/bin/${bin} $out/bin/${bin}
            '';
        in
        {
          default = app;
          controller = only "controller" "review-classifier-controller";
          classifier = only "classifier" "review-classifier-classifier";
          cli = only "cli" "review-classifier";
        }
      );

      overlays.default = final: _prev: {
        review-classifier = final.callPackage ./nix/package.nix { };
      };

      # services.review-classifier; see nix/module.nix for the options.
      nixosModules.default = ./nix/module.nix;

      devShells = forAll (pkgs: {
        default = pkgs.mkShell {
          packages = [
            pkgs.bun
            pkgs.nodejs_20
            pkgs.nats-server
            pkgs.chromium
            pkgs.git
            pkgs.biome
          ];
        };
      });
    };
}
