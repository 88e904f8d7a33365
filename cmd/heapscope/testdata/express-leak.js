// An express server with planted leaks, driven by its own client over
// loopback; it writes three heap snapshots (baseline, target, final).
const express = require(process.env.SUBJECTS + '/express');
const http = require('http');
const v8 = require('v8');
const { EventEmitter } = require('events');

const config = new EventEmitter();
config.setMaxListeners(0);

class Session {
  constructor(id, req) {
    this.id = id;
    this.user = 'user-' + id;
    this.agent = req.headers['user-agent'] || '';
    this.cart = [];
  }
}
class SessionMeta {
  constructor(id) { this.id = id; this.seen = [Date.now()]; this.notes = 'session ' + id; }
}
globalThis.sessionMeta = new WeakMap();        // per-session metadata, dropped with the session
class SocketStats {
  constructor() { this.requests = 0; this.samples = new Array(32).fill(0); }
}

function makeApp() {
  const app = express();
  const sessions = new Map();                 // leak: never evicted
  app.get('/login', function onRequest(req, res) {
    const id = sessions.size + 1;
    const session = new Session(id, req);
    sessions.set('s' + id, session);
    sessionMeta.set(session, new SessionMeta(id));
    config.on('change', function onConfigChange() { res.locals.config = id; }); // leak: never removed
    res.send('welcome ' + id);
  });
  app.get('/ping', (req, res) => res.send('pong'));
  return app;
}

const perSocket = globalThis.perSocket = new WeakMap(); // values live as long as their sockets
const server = http.createServer(makeApp());
server.keepAliveTimeout = 0;               // snapshots block for seconds
server.on('connection', (sock) => perSocket.set(sock, new SocketStats()));

function get(path, agent) {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port: server.address().port, path, agent }, (res) => {
      res.resume(); res.on('end', resolve);
    }).on('error', reject);
  });
}
async function batch(n, agent) { for (let i = 0; i < n; i++) await get('/login', agent); }

server.listen(0, '127.0.0.1', async () => {
  const keep = new http.Agent({ keepAlive: true, maxSockets: 4 });
  const dir = process.argv[2] || '.';
  for (let i = 0; i < 20; i++) await get('/ping', keep);   // warm up
  v8.writeHeapSnapshot(dir + '/1-baseline.heapsnapshot');
  await batch(500, keep);
  v8.writeHeapSnapshot(dir + '/2-target.heapsnapshot');
  await batch(500, keep);
  v8.writeHeapSnapshot(dir + '/3-final.heapsnapshot');
  keep.destroy();
  server.close();
});
