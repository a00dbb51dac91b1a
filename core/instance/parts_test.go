package instance

import (
	"log/slog"
	"testing"

	"github.com/mcptray/mcptray/core/secret/secrettest"
	"github.com/mcptray/mcptray/core/service"
	"github.com/mcptray/mcptray/core/service/trust"
)

// TestMakePartsWiresEveryPart: core/instance makes each of the service's
// parts beside it, the trust keeper on the approvals file of the
// service's paths, and keeps a part already given (a test's own), so that
// service.New has nothing left to make for the running mcptray.
func TestMakePartsWiresEveryPart(t *testing.T) {
	t.Parallel()
	p := home(t)
	so := service.Options{Paths: p, Store: secrettest.New()}
	mine := trust.New(trust.Options{Dir: p.Dir(), Approvals: nil})
	so.Trust = mine
	makeParts(&so, slog.New(slog.DiscardHandler))
	if so.Secrets == nil || so.SignIns == nil || so.DataFolders == nil {
		t.Fatalf("a part was left for the service to make: secrets %v, sign-ins %v, data folders %v", so.Secrets != nil, so.SignIns != nil, so.DataFolders != nil)
	}
	if so.Trust != mine {
		t.Error("the trust keeper given was replaced")
	}

	so = service.Options{Paths: p, Store: secrettest.New()}
	makeParts(&so, nil)
	if a := so.Trust.Approvals(); a == nil || a.Path != p.ApprovalsFile() {
		t.Errorf("the trust keeper records in %+v, want the approvals file %s", a, p.ApprovalsFile())
	}
	c, err := NewCore(t.Context(), so, CoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Error(err)
	}
}
