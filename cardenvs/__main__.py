import sys

from cardenvs.cli import main

sys.exit(main())
