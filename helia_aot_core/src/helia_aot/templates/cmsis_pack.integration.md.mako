The module is a CMSIS software pack: `${pdsc}` describes it as the component
`${component}` (vendor `${vendor}`), listing its sources, headers and include paths.

1. Install the pack and the `Ambiq.NS-CMSIS-NN` pack (7.47.0 or newer) its component condition
   requires, with a `${core}` device selected. Install this pack: convert with a `module.path` ending in `.pack` to get the archive, then
   `cpackget add ${vendor}.${layout.target}.${layout.version}.pack` (rename the archive to that form), or
   point your IDE's pack manager at this folder.
2. Select the component in your project, for example in a `csolution` project's `cproject.yml`:

   ```yaml
   components:
     - component: ${vendor}::${component}
   ```

3. Include `${layout.prefix}_model.h`; the component adds `includes-api/` to the include path.
