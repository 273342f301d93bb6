// The traces the step player draws (views/player.py PLAYER_TRACES): scatter (always in
// plotly.js's core), scattergl, heatmap, contour and histogram.
var Plotly = require('./lib/core');
Plotly.register([require('./lib/scattergl'), require('./lib/heatmap'), require('./lib/contour'), require('./lib/histogram')]);
module.exports = Plotly;
