# A backend: sleeps ?sleep= ms, answers 503 on /v1/fail, 404 on /v1/missing, echoes X-Request-Id.
import time, json
from urllib.parse import parse_qs
def wsgi(environ, start):
    q = parse_qs(environ.get('QUERY_STRING', ''))
    time.sleep(int(q.get('sleep', ['0'])[0]) / 1000)
    path = environ.get('PATH_INFO', '')
    st = '503 Service Unavailable' if path == '/v1/fail' else '404 Not Found' if path == '/v1/missing' else '200 OK'
    rid = environ.get('HTTP_X_REQUEST_ID', '')
    body = json.dumps({"ok": st.startswith('200')}).encode()
    start(st, [('Content-Type', 'application/json'), ('X-Request-Id', rid), ('Content-Length', str(len(body)))])
    return [body]
application = wsgi
async def asgi(scope, receive, send):
    if scope['type'] != 'http':
        return
    import asyncio
    q = parse_qs(scope.get('query_string', b'').decode())
    await asyncio.sleep(int(q.get('sleep', ['0'])[0]) / 1000)
    path = scope['path']
    st = 503 if path == '/v1/fail' else 404 if path == '/v1/missing' else 200
    rid = dict(scope['headers']).get(b'x-request-id', b'')
    body = json.dumps({"ok": st == 200}).encode()
    await send({'type': 'http.response.start', 'status': st, 'headers': [(b'content-type', b'application/json'), (b'x-request-id', rid)]})
    await send({'type': 'http.response.body', 'body': body})
if __name__ == '__main__':
    import sys
    from wsgiref.simple_server import make_server, WSGIRequestHandler
    from socketserver import ThreadingMixIn
    from wsgiref.simple_server import WSGIServer
    class T(ThreadingMixIn, WSGIServer): daemon_threads = True
    class Q(WSGIRequestHandler):
        def log_message(self, *a): pass
    make_server('127.0.0.1', int(sys.argv[1]), wsgi, server_class=T, handler_class=Q).serve_forever()
