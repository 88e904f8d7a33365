// An HTTP server that leaks one Session per request: remember() makes
// them and keeps them. It prints "listening PORT PID".
'use strict';
const http = require('http');

class Session {
  constructor(id, path) { this.id = id; this.path = path; this.started = Date.now(); }
}

const sessions = [];

function remember(id, path) {
  sessions.push(new Session(id, path));
}

let served = 0;
const server = http.createServer((req, res) => {
  remember(served++, req.url);
  res.end('ok\n');
});
server.listen(0, '127.0.0.1', () => console.log('listening ' + server.address().port + ' ' + process.pid));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
