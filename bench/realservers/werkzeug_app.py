import sys, logging
sys.path.insert(0, __import__('os').path.dirname(__import__('os').path.abspath(__file__)))
from app import wsgi
from werkzeug.serving import run_simple
logging.basicConfig(filename=sys.argv[2], level=logging.INFO)
run_simple('127.0.0.1', int(sys.argv[1]), wsgi, threaded=True)
