# The committed package.json and package-lock.json, made fit for nixpkgs'
# importNpmLock. Plain builtins, so it evaluates without nixpkgs:
#   nix-instantiate --eval --strict --json -E \
#     'import ./nix/npm-lock.nix { package = builtins.fromJSON (builtins.readFile ./package.json);
#                                  packageLock = builtins.fromJSON (builtins.readFile ./package-lock.json); }'
#
# 1. `resolved`. importNpmLock fetches each lockfile entry from its `resolved`
#    URL and checks it against the entry's `integrity`; an entry without
#    `resolved` is not fetched at all, npm then goes to the registry for it,
#    and the sandbox has no network. This project's npm config sets
#    `omit-lockfile-registry-resolved = true`, so no entry has one. The URL
#    npm itself derives for a registry package is put back:
#    <registry>/<name>/-/<name without scope>-<version>.tgz. The `integrity`
#    hashes stay the lockfile's own, so nothing needs a hash written here.
#
# 2. What the service never loads from node_modules is left out, so it is
#    neither fetched nor installed: dev-only entries (biome, typescript, the
#    pinned Bun and their platform binaries) and the packages in `drop`
#    together with their optional platform packages (claude-code and
#    opencode-ai, whose native binaries come from nixpkgs instead). Their
#    names go from package.json and from the lockfile's root entry too, so
#    npm sees a lockfile that matches package.json and installs offline.
{
  package,
  packageLock,
  drop ? [ ],
  registry ? "https://registry.npmjs.org",
}:
let
  inherit (builtins)
    attrNames
    baseNameOf
    concatMap
    elem
    elemAt
    filter
    length
    listToAttrs
    removeAttrs
    split
    ;

  packages = packageLock.packages;

  # "node_modules/a/node_modules/@s/b" -> "@s/b"; an npm alias names its real package in `name`.
  lastOf = list: elemAt list (length list - 1);
  nameOf = path: entry: entry.name or (lastOf (split "node_modules/" path));

  dropped =
    drop
    ++ concatMap (name: attrNames (packages."node_modules/${name}".optionalDependencies or { })) drop;

  keep =
    path: entry: path == "" || (!(entry.dev or false) && !(elem (nameOf path entry) dropped));

  # Only registry entries: a link, a bundled dependency, a git or file source keep what they have.
  withResolved =
    path: entry:
    if
      path == ""
      || entry ? resolved
      || entry.link or false
      || entry.inBundle or false
      || !(entry ? integrity && entry ? version)
    then
      entry
    else
      let
        name = nameOf path entry;
      in
      entry // { resolved = "${registry}/${name}/-/${baseNameOf name}-${entry.version}.tgz"; };

  # The root's own dependency lists, without the dev ones and the dropped ones.
  trimRoot =
    root:
    removeAttrs root [ "devDependencies" ]
    // (if root ? dependencies then { dependencies = removeAttrs root.dependencies dropped; } else { })
    // (
      if root ? optionalDependencies then
        { optionalDependencies = removeAttrs root.optionalDependencies dropped; }
      else
        { }
    );

  keptPaths = filter (path: keep path packages.${path}) (attrNames packages);
in
{
  package = trimRoot package;
  packageLock = packageLock // {
    packages = listToAttrs (
      map (path: {
        name = path;
        value =
          if path == "" then trimRoot packages.${path} else withResolved path packages.${path};
      }) keptPaths
    );
  };
}
