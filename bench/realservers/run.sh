#!/bin/bash
# bench/realservers/run.sh: real servers on 127.0.0.1 log real requests; pbsift correlate reads them.
#
# Each server is configured as its documentation says to log the request id and the request's time,
# in front of (or running) a small app (app.py) that sleeps as asked and answers 200, 404 or 503.
# client.py sends ten requests with fresh ids, records the device's times 2.508 s behind the
# server's clock and writes a real export of them; score.py runs `pbsift correlate --json` on the
# export and the server's log and prints, per shape, the ids whose status and duration were read,
# and whether the clock skew lies within 50 ms of 2.508 s.
#
# Needs: nginx apache2 haproxy rsyslog caddy lighttpd uwsgi uwsgi-plugin-python3 (Debian), gunicorn
# hypercorn aiohttp werkzeug (PyPI). A server that is missing is skipped. Usage:
#   PBSIFT=.build/release/pbsift bench/realservers/run.sh [WORKDIR]
set -u
here=$(cd "$(dirname "$0")" && pwd)
work=${1:-$(mktemp -d)}
mkdir -p "$work"
cd "$work" || exit 1
export PBSIFT=${PBSIFT:-pbsift}
have() { command -v "$1" >/dev/null 2>&1; }
backend=18999
python3 "$here/app.py" $backend >/dev/null 2>&1 &
pids=($!)
trap 'kill "${pids[@]}" 2>/dev/null' EXIT
sleep 0.5
seed=1
client() { python3 "$here/client.py" "$1" "$work/exp-$2" $seed; seed=$((seed + 1)); }
score() { python3 "$here/score.py" "$1" "$work/exp-$2" "$3"; }

if have nginx; then
    mkdir -p nginx/tmp
    cat >nginx/nginx.conf <<EOF
worker_processes 1;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path $work/nginx/tmp; proxy_temp_path $work/nginx/tmp; fastcgi_temp_path $work/nginx/tmp;
  uwsgi_temp_path $work/nginx/tmp; scgi_temp_path $work/nginx/tmp;
  log_format rid '\$remote_addr - \$remote_user [\$time_local] "\$request" \$status \$body_bytes_sent "\$http_referer" "\$http_user_agent" \$request_time "\$http_x_request_id"';
  log_format ridms '\$remote_addr - \$remote_user [\$time_local] "\$request" \$status \$body_bytes_sent "\$http_referer" "\$http_user_agent" "\$http_x_request_id" rt=\$request_time urt=\$upstream_response_time msec=\$msec';
  log_format jsonmsec escape=json '{"msec":"\$msec","time_iso8601":"\$time_iso8601","request_id":"\$http_x_request_id","request_method":"\$request_method","request_uri":"\$request_uri","status":\$status,"request_time":\$request_time}';
  log_format jsoniso escape=json '{"time":"\$time_iso8601","request_id":"\$http_x_request_id","method":"\$request_method","uri":"\$request_uri","status":"\$status","request_time":"\$request_time"}';
  server { listen 127.0.0.1:18080;
    access_log $work/nginx/rid.log rid; access_log $work/nginx/ridms.log ridms;
    access_log $work/nginx/jsonmsec.log jsonmsec; access_log $work/nginx/jsoniso.log jsoniso;
    location / { proxy_pass http://127.0.0.1:$backend; proxy_set_header X-Request-Id \$http_x_request_id; } }
}
EOF
    nginx -c "$work/nginx/nginx.conf" && sleep 0.3 && client 18080 nginx
    nginx -c "$work/nginx/nginx.conf" -s stop 2>/dev/null
    sleep 0.3
    for s in rid ridms jsonmsec jsoniso; do score "nginx-$s" nginx "nginx/$s.log"; done
fi

if have apache2; then
    mkdir -p apache && chmod 777 apache
    cat >apache/httpd.conf <<EOF
ServerRoot "/etc/apache2"
PidFile $work/apache/httpd.pid
Listen 127.0.0.1:18081
LoadModule mpm_event_module /usr/lib/apache2/modules/mod_mpm_event.so
LoadModule authz_core_module /usr/lib/apache2/modules/mod_authz_core.so
LoadModule proxy_module /usr/lib/apache2/modules/mod_proxy.so
LoadModule proxy_http_module /usr/lib/apache2/modules/mod_proxy_http.so
ServerName localhost
ErrorLog $work/apache/error.log
LogFormat "%h %l %u %t \"%r\" %>s %b \"%{Referer}i\" \"%{User-Agent}i\" \"%{X-Request-Id}i\" %D" ridD
LogFormat "%h %l %u [%{%d/%b/%Y %T}t.%{msec_frac}t %{%z}t] \"%r\" %>s %b \"%{Referer}i\" \"%{User-Agent}i\" \"%{X-Request-Id}i\" %{ms}T" ridms
CustomLog $work/apache/ridD.log ridD
CustomLog $work/apache/ridms.log ridms
ProxyPass / http://127.0.0.1:$backend/
User www-data
Group www-data
EOF
    apache2 -f "$work/apache/httpd.conf" -k start && sleep 0.5 && client 18081 apache
    apache2 -f "$work/apache/httpd.conf" -k stop
    sleep 0.5
    for s in ridD ridms; do score "apache-$s" apache "apache/$s.log"; done
fi

if have haproxy; then
    mkdir -p haproxy
    for variant in stdout rsyslog; do
        if [ $variant = stdout ]; then target="stdout format raw local0"; port=18082; else target="127.0.0.1:15514 local0"; port=18083; fi
        cat >haproxy/$variant.cfg <<EOF
global
  log $target
defaults
  mode http
  log global
  option httplog
  timeout connect 5s
  timeout client 10s
  timeout server 10s
frontend fe
  bind 127.0.0.1:$port
  capture request header X-Request-Id len 64
  default_backend be
backend be
  server srv1 127.0.0.1:$backend
EOF
        if [ $variant = rsyslog ]; then
            have rsyslogd || continue
            printf 'module(load="imudp")\ninput(type="imudp" address="127.0.0.1" port="15514")\n$WorkDirectory %s/haproxy\nlocal0.* %s/haproxy/rsyslog.log\n' "$work" "$work" >haproxy/rsyslog.conf
            rsyslogd -f "$work/haproxy/rsyslog.conf" -i "$work/haproxy/rsyslog.pid"
        fi
        haproxy -f haproxy/$variant.cfg >haproxy/stdout.log 2>&1 &
        hp=$!
        sleep 0.5
        client $port haproxy-$variant
        sleep 0.5
        kill $hp 2>/dev/null
        [ $variant = rsyslog ] && kill "$(cat haproxy/rsyslog.pid)" 2>/dev/null
        score "haproxy-$variant" haproxy-$variant "haproxy/$variant.log"
    done
fi

if have caddy; then
    mkdir -p caddy
    printf '{\n  admin off\n  auto_https off\n}\nhttp://127.0.0.1:18084 {\n  log {\n    output file %s/caddy/access.log\n    format json\n  }\n  reverse_proxy 127.0.0.1:%s\n}\n' "$work" $backend >caddy/Caddyfile
    caddy run --config caddy/Caddyfile --adapter caddyfile >caddy/run.log 2>&1 &
    cp=$!
    sleep 1.5
    client 18084 caddy
    kill $cp
    score caddy caddy caddy/access.log
fi

if have lighttpd; then
    mkdir -p lighttpd && chmod 777 lighttpd
    cat >lighttpd/l.conf <<EOF
server.modules = ("mod_proxy", "mod_accesslog")
server.document-root = "$work/lighttpd"
server.bind = "127.0.0.1"
server.port = 18085
server.pid-file = "$work/lighttpd/l.pid"
server.errorlog = "$work/lighttpd/error.log"
accesslog.filename = "$work/lighttpd/access.log"
accesslog.format = "%h %V %u %t \"%r\" %>s %b \"%{Referer}i\" \"%{User-Agent}i\" \"%{X-Request-Id}i\" %D"
proxy.server = ("" => (("host" => "127.0.0.1", "port" => $backend)))
EOF
    lighttpd -f lighttpd/l.conf && sleep 0.5 && client 18085 lighttpd
    kill "$(cat lighttpd/l.pid)" 2>/dev/null
    sleep 0.3
    score lighttpd lighttpd lighttpd/access.log
fi

mkdir -p py
if have gunicorn; then
    gunicorn --bind 127.0.0.1:18086 --workers 2 --chdir "$here" --access-logfile "$work/py/gunicorn.log" \
        --access-logformat '%(h)s %(l)s %(u)s %(t)s "%(r)s" %(s)s %(b)s "%(f)s" "%(a)s" %({x-request-id}i)s %(D)s' app:application \
        >py/gunicorn.out 2>&1 &
    gp=$!
    sleep 1.5
    client 18086 gunicorn
    kill $gp
    sleep 0.3
    score gunicorn gunicorn py/gunicorn.log
fi

if have uwsgi; then
    uwsgi --plugin python3 --http-socket 127.0.0.1:18087 --wsgi-file "$here/app.py" --logto "$work/py/uwsgi.log" \
        --logformat '%(addr) - %(user) [%(ltime)] "%(method) %(uri) %(proto)" %(status) %(size) "%(referer)" "%(uagent)" %(var.HTTP_X_REQUEST_ID) %(msecs)ms' \
        >py/uwsgi.out 2>&1 &
    up=$!
    sleep 1.5
    client 18087 uwsgi
    kill $up
    uwsgi --plugin python3 --http-socket 127.0.0.1:18088 --wsgi-file "$here/app.py" --logto "$work/py/uwsgi-default.log" >py/uwsgi2.out 2>&1 &
    up=$!
    sleep 1.5
    client 18088 uwsgi-default
    kill $up
    sleep 0.3
    score uwsgi uwsgi py/uwsgi.log
    score uwsgi-default uwsgi-default py/uwsgi-default.log
fi

if have hypercorn; then
    (cd "$here" && hypercorn --bind 127.0.0.1:18089 --access-logfile "$work/py/hypercorn.log" \
        --access-logformat '%(h)s %(l)s %(u)s %(t)s "%(r)s" %(s)s %(b)s "%(f)s" "%(a)s" %({x-request-id}i)s %(D)s' app:asgi \
        >"$work/py/hypercorn.out" 2>&1) &
    hp=$!
    sleep 2
    client 18089 hypercorn
    pkill -f "hypercorn --bind 127.0.0.1:18089"
    sleep 0.3
    score hypercorn hypercorn py/hypercorn.log
fi

if python3 -c 'import aiohttp' 2>/dev/null; then
    for f in Tf D; do
        port=$([ $f = Tf ] && echo 18090 || echo 18091)
        python3 "$here/aiohttp_app.py" $port "$work/py/aio-$f.log" \
            "%a %t \"%r\" %s %b \"%{Referer}i\" \"%{User-Agent}i\" %{X-Request-Id}i %$f" >/dev/null 2>&1 &
        ap=$!
        sleep 1.5
        client $port aiohttp-$f
        kill $ap
        sleep 0.3
        score aiohttp-$f aiohttp-$f py/aio-$f.log
    done
fi

if python3 -c 'import werkzeug' 2>/dev/null; then
    python3 "$here/werkzeug_app.py" 18092 "$work/py/werkzeug.log" >/dev/null 2>&1 &
    wp=$!
    sleep 1.5
    client 18092 werkzeug
    kill $wp
    sleep 0.3
    score werkzeug werkzeug py/werkzeug.log
fi
echo "logs and exports: $work"
