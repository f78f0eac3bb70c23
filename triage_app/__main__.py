from triage_app.cli import main

raise SystemExit(main())
