from triage_app.ui.app import main

raise SystemExit(main())
