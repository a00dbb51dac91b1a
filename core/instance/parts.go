package instance

import (
	"log/slog"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/service"
	"github.com/mcptray/mcptray/core/service/datafolders"
	"github.com/mcptray/mcptray/core/service/secretkeep"
	"github.com/mcptray/mcptray/core/service/signin"
	"github.com/mcptray/mcptray/core/service/trust"
)

// makeParts makes, beside the service of so, its parts that serve the
// keychain, the approvals file and the servers' data folders, each on
// what so says (its Store, its Paths), and gives them in so: the keeper
// of servers' secrets and the sign-in desk on the keychain, the trust
// keeper on the approvals file the service's loader will read, and the
// data folders. A part so already holds (a test's own) is kept. The
// service attaches itself to each as it is made (service.New).
func makeParts(so *service.Options, log *slog.Logger) {
	if so.Secrets == nil {
		so.Secrets = secretkeep.New(secretkeep.Options{Store: so.Store, Dir: so.Paths.Dir(), UserFile: so.Paths.UserFile(), Logger: log})
	}
	if so.SignIns == nil {
		so.SignIns = signin.New(signin.Options{
			Store: so.Store, Dir: so.Paths.Dir(), Logger: log,
			Browser: so.Browser, ClientMetadataURL: so.ClientMetadataURL,
		})
	}
	if so.Trust == nil {
		so.Trust = trust.New(trust.Options{
			Dir: so.Paths.Dir(), Approvals: &config.ApprovalStore{Path: so.Paths.ApprovalsFile()},
			Now: so.Now, Logger: log,
		})
	}
	if so.DataFolders == nil {
		so.DataFolders = datafolders.New(datafolders.Options{Logger: log})
	}
}
