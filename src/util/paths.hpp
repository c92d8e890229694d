#pragma once
// Where cuzk keeps its data when nothing says otherwise; shared by the daemon and its clients so
// that both look for the socket in the same place.
#include <string>

namespace cuzk {

// $XDG_DATA_HOME/cuzk (an absolute XDG_DATA_HOME only, as the XDG spec says), else
// $HOME/.local/share/cuzk, else /tmp/cuzk-<uid>.
std::string default_data_dir();
// unix://<default_data_dir()>/cuzk.sock
std::string default_socket_address();

}  // namespace cuzk
