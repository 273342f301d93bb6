// plotly.js's own build settings (its esbuild-config.js: CSS inlined, shaders through glsl,
// the plotly flavour of regl), minified, for our entry.  Run from the plotly.js package.
const esbuild = require('esbuild');
const { environmentPlugin } = require('esbuild-plugin-environment');
const { glsl } = require('esbuild-plugin-glsl');
const InlineCSSPlugin = require('esbuild-plugin-inline-css');
const [entry, outfile, banner] = process.argv.slice(2);
esbuild.build({
  entryPoints: [entry], outfile, format: 'iife', globalName: 'Plotly', bundle: true, minify: true,
  sourcemap: false, legalComments: 'inline', banner: { js: banner },
  plugins: [InlineCSSPlugin(), glsl({ minify: true }), environmentPlugin({ NODE_DEBUG: false })],
  alias: { regl: '@plotly/regl', stream: 'stream-browserify' },
  define: { global: 'window', 'define.amd': 'false' }, target: 'es2016', logLevel: 'warning',
}).catch((error) => { console.error(error); process.exit(1); });
