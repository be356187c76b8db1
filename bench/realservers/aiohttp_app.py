import asyncio, sys
from aiohttp import web
async def h(req):
    await asyncio.sleep(int(req.query.get('sleep', '0')) / 1000)
    st = 503 if req.path == '/v1/fail' else 404 if req.path == '/v1/missing' else 200
    return web.json_response({"ok": st == 200}, status=st, headers={'X-Request-Id': req.headers.get('X-Request-Id', '')})
import logging
logging.basicConfig(filename=sys.argv[2], level=logging.INFO, format='%(message)s')
app = web.Application(); app.router.add_route('*', '/{p:.*}', h)
web.run_app(app, host='127.0.0.1', port=int(sys.argv[1]), access_log_format=sys.argv[3], print=None)
