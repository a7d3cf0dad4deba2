// Headless Chromium as the page benches launch it: Debian's chromium with software WebGL
// (SwiftShader), and none of the background connections a closed network refuses.
export const FLAGS = [
  '--headless=new', '--no-sandbox', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--enable-unsafe-swiftshader', '--use-angle=swiftshader',
];
