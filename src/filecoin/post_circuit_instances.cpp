// The explicit instantiations that post_circuit.hpp declares extern.
#include "filecoin/post_circuit.hpp"

namespace cuzk::filecoin::post_detail {

template void sector_circuit(r1cs::CountingCS&, const PostSectorWitness&);
template void sector_circuit(r1cs::RecordingCS&, const PostSectorWitness&);
template void sector_circuit(r1cs::WitnessCS&, const PostSectorWitness&);
template void sector_circuit(r1cs::ProvingCS&, const PostSectorWitness&);
template void sector_circuit(r1cs::TestCS&, const PostSectorWitness&);

}  // namespace cuzk::filecoin::post_detail
