import sys

from cardenvs.cli.main import main

sys.exit(main())
