// What the suites here share: a listener on 127.0.0.1:0, and the incident
// of issue 25 rebuilt: an embedded server that checks the request's origin
// against the port it was configured with (0), not the one it bound, so
// it answers 403 to its own origin.
const http = require('node:http');
const net = require('node:net');

exports.listen = () => new Promise((ok, fail) => {
  const s = net.createServer();
  s.once('error', fail);
  s.listen(0, '127.0.0.1', () => s.close(ok));
});

exports.startServer = (configuredPort) => new Promise((ok, fail) => {
  const srv = http.createServer((req, res) => {
    const origin = new URL(req.headers.origin);
    res.statusCode = Number(origin.port) === configuredPort ? 200 : 403;  // the bug
    res.end();
  });
  srv.once('error', fail);
  srv.listen(configuredPort, '127.0.0.1', () => ok(srv));
});

// The status the server answers its own origin, or null when it cannot
// start because listen() is denied (the lenient return of the incident).
exports.ownOriginStatus = async () => {
  let srv;
  try {
    srv = await exports.startServer(0);
  } catch (e) {
    if (e.code === 'EPERM' || e.code === 'EACCES') return null;
    throw e;
  }
  const port = srv.address().port;
  const status = await new Promise((ok, fail) => {
    http.get({ host: '127.0.0.1', port, headers: { origin: `http://127.0.0.1:${port}` } }, (r) => {
      r.resume();
      ok(r.statusCode);
    }).on('error', fail);
  });
  srv.close();
  return status;
};
